// Temporal's AI SDK sample agent (examples/ai-sdk: `generateText` in a workflow through the plugin's
// provider, its tools' `execute` activities, one of them mailing), swept from its configs as a user
// sweeps it: the sample's way mails twice after some kills, crash-safe tools never, killed once or
// twice (testdata/ai-sdk-sample.txt, testdata/ai-sdk-crash-safe.txt). A config that forgot the plugin,
// and one whose workflow throws, end within seconds with the failure named.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './helpers/processes';

const run = promisify(execFile);
const crashSweep = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'sweep/cli/crash-sweep.ts', ...args], { cwd: ROOT }).then(
    (done) => ({ ...done, code: 0 }),
    (err: { code: number; stdout: string; stderr: string }) => err,
  );
const golden = (name: string) => readFileSync(path.join(ROOT, 'testdata', name), 'utf8');

test("the sample's way, killed once and twice: the mail goes out twice, the golden table", async () => {
  const swept = await crashSweep('--config', 'examples/ai-sdk/sample.config.ts', '--full');
  expect(swept.stdout).toBe(
    `${golden('ai-sdk-sample.txt')}\ncrash sweep: 243 scenarios in 1 row: damage in 1 row (exit status 1)\n`,
  );
  expect(swept.code).toBe(1);
  expect(swept.stderr).toMatch(/damage: ai-sdk-sample \(AI SDK agent, the sample's way\): dups [1-9]/);
}, 600_000);

test('crash-safe tools, killed once and twice: every mail once, none missing, the golden table', async () => {
  const swept = await crashSweep('--config', 'examples/ai-sdk/crash-safe.config.ts', '--full');
  expect(swept.stdout).toBe(
    `${golden('ai-sdk-crash-safe.txt')}\ncrash sweep: 243 scenarios in 1 row: passed (exit status 0)\n`,
  );
  expect(swept.code).toBe(0);
}, 600_000);

test('the config without the plugin ends within seconds, naming the workflow task’s failure', async () => {
  const swept = await crashSweep('--config', 'test/fixtures/configs/ai-sdk-no-plugin.config.ts');
  expect(swept.code).toBe(3);
  expect(swept.stderr).toMatch(
    /the clean run of ai-sdk-no-plugin could not run: its workflow task keeps failing \(attempt \d+, workflow_worker_unhandled_failure\): ReferenceError: TransformStream is not defined: .*plugin/,
  );
  // Not the five-minute wait of a run that did not finish, and no run again.
  expect(swept.stderr).not.toMatch(/did not finish|running them again/);
}, 120_000);

test("a workflow that throws: the line of the user's code that threw", async () => {
  const swept = await crashSweep('--config', 'test/fixtures/configs/task-fails.config.ts');
  expect(swept.code).toBe(3);
  expect(swept.stderr).toContain(
    `ReferenceError: TransformStream is not defined (at ${path.join('test', 'fixtures', 'configs', 'task-fails', 'workflows.ts')}:6:17)`,
  );
}, 120_000);
