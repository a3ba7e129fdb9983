// What every command shares (`runMain`): a reader that stops early (`| head`) ends it quietly.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ROOT } from './helpers/processes';

test('a command piped into head exits 0 with no EPIPE, however much it had left to print', async () => {
  // As `npm run status -- ID | head` runs: runMain around a main that prints far more than head reads.
  const script =
    "require('./common/cli').runMain(async () => { for (let i = 0; i < 200000; i++) console.log('line ' + i); })";
  const command = `set -o pipefail; node --import tsx -e "${script}" | head -2`;
  const { stdout, stderr } = await promisify(execFile)('bash', ['-c', command], { cwd: ROOT });
  expect(stdout).toBe('line 0\nline 1\n');
  expect(stderr).not.toMatch(/EPIPE|Error/);
}, 30_000);

test("npm run dev keeps a model of the user's own (OPENAI_BASE_URL) and otherwise gives the worker the scripted one", async () => {
  const { devWorkerEnv } = await import('../clients/dev-env');
  const ports = { temporal: 7233, tracker: 4100, model: 4200 };
  const own = devWorkerEnv({ OPENAI_BASE_URL: 'https://llm.example/v1', AGENT_MODEL: 'm', TRACKER_URL: 'x' }, ports);
  expect(own).toMatchObject({
    OPENAI_BASE_URL: 'https://llm.example/v1',
    AGENT_MODEL: 'm',
    TRACKER_URL: 'http://127.0.0.1:4100',
    TEMPORAL_ADDRESS: 'localhost:7233',
  });
  expect(devWorkerEnv({}, ports).OPENAI_BASE_URL).toBe('http://127.0.0.1:4200/v1');
});
