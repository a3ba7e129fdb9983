// A project in a temporary folder that depends on this one by path and runs `npx crash-sweep` on a workflow of its own.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './helpers/processes';

const run = promisify(execFile);
const sdkVersion = (
  JSON.parse(readFileSync(path.join(ROOT, 'node_modules', '@temporalio', 'workflow', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
const ownName = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string }).name;

// Another project, in a temporary folder, that depends on this repository by path and on the Temporal
// SDK's workflow and activity packages, as a user's would. Its files (test/fixtures/scratch-project) are
// a welcome-mail workflow, its activity, and a crash-sweep.config.ts that imports `defineSweep` from this package.
const dir = mkdtempSync(path.join(os.tmpdir(), 'scratch-project-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a project that depends on this one runs `npx crash-sweep --config crash-sweep.config.ts` on its own workflow', async () => {
  cpSync(path.join(ROOT, 'test', 'fixtures', 'scratch-project'), dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'scratch-project',
      private: true,
      dependencies: {
        [ownName]: `file:${ROOT}`,
        '@temporalio/workflow': sdkVersion,
        '@temporalio/activity': sdkVersion,
      },
    }),
  );
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir });

  const { stdout } = await run(
    'npx',
    ['crash-sweep', '--config', 'crash-sweep.config.ts', '--once', '--json', 'out.json'],
    { cwd: dir },
  );
  // One send, no key: a kill once the mail server has answered, or once the activity has its result, mails twice.
  const [header, row, ...rest] = stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {2,}/));
  expect([header, rest]).toEqual([
    ['variant', 'once', 'twice', 'with dups', 'dups', 'missing', 'orphans', 'asks', 'calls+', 'appr+'],
    [],
  ]);
  expect(row).toEqual(['crash-sweep', '5', '0', '2', '2', '0', '0', '0', '0', '0']);
  const report = JSON.parse(readFileSync(path.join(dir, 'out.json'), 'utf8')) as {
    points: Record<string, Array<{ name: string; detail: string }>>;
  };
  expect(report.points['crash-sweep'].map((p) => `${p.name} ${p.detail}`)).toEqual([
    'workflow.decided scheduleActivity',
    'activity.started sendWelcome',
    'http.accepted POST 127.0.0.1 /send',
    'activity.returned sendWelcome',
    'workflow.decided completeWorkflowExecution',
  ]);
}, 300_000);
