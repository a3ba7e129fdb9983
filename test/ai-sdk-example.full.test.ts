// Temporal's AI SDK sample agent (examples/ai-sdk: `generateText` in a workflow through the plugin's
// provider, its tools' `execute` activities, one of them mailing), swept from its configs as a user
// sweeps it: the sample's way mails twice after some kills, crash-safe tools never, killed once or
// twice (testdata/ai-sdk-sample.txt, testdata/ai-sdk-crash-safe.txt). A config whose workflow throws
// ends within seconds with the failure and its line named (a config that forgot the plugin is the
// scratch project's test: test/scratch-project.full.test.ts).
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

test("killed once and twice, side by side: the sample's way mails twice, crash-safe tools never, the MCP shape twice too; the golden tables", async () => {
  // Both at once, as on a busy machine: the table is the same (and CI is two minutes shorter).
  const [sample, safe, mcp] = await Promise.all([
    crashSweep('--config', 'examples/ai-sdk/sample.config.ts', '--full'),
    crashSweep('--config', 'examples/ai-sdk/crash-safe.config.ts', '--full'),
    crashSweep('--config', 'examples/ai-sdk/mcp.config.ts'),
  ]);
  expect(sample.stdout).toBe(
    `${golden('ai-sdk-sample.txt')}\ncrash sweep: 243 scenarios in 1 row: damage in 1 row (exit status 1)\n`,
  );
  expect(sample.code).toBe(1);
  expect(sample.stderr).toMatch(/damage: ai-sdk-sample \(AI SDK agent, the sample's way\): dups [1-9]/);
  expect(safe.stdout).toBe(
    `${golden('ai-sdk-crash-safe.txt')}\ncrash sweep: 243 scenarios in 1 row: passed (exit status 0)\n`,
  );
  expect(safe.code).toBe(0);
  // The sample's MCP shape, killed once: a kill once the MCP server has sent the mail (its answer not
  // read, or read and not reported) sends it again; the MCP session's setup is found and not killed at.
  expect(mcp.stdout).toBe(
    `${golden('ai-sdk-mcp.txt')}\ncrash sweep: 25 scenarios in 1 row: damage in 1 row (exit status 1)\n`,
  );
  expect(mcp.stderr).toMatch(
    /http\.accepted POST 127\.0\.0\.1 \/mcp initialize.*reached only by the first run of a worker process/,
  );
}, 600_000);

test("a workflow that throws: the line of the user's code that threw", async () => {
  const swept = await crashSweep('--config', 'test/fixtures/configs/task-fails.config.ts');
  expect(swept.code).toBe(3);
  expect(swept.stderr).toContain(
    `ReferenceError: TransformStream is not defined (at ${path.join('test', 'fixtures', 'configs', 'task-fails', 'workflows.ts')}:6:17)`,
  );
}, 120_000);
