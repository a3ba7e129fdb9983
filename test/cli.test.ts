// What every command shares (`runMain`): a reader that stops early (`| head`) ends it quietly.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
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

test('npm run dev derives keys under a secret it keeps in its folder, which the clients read; AGENT_KEY_SECRET wins', async () => {
  const { mkdtempSync, statSync } = await import('node:fs');
  const os = await import('node:os');
  const { clientKeySecret, devKeySecret, devWorkerEnv } = await import('../clients/dev-env');
  const env = { DEV_DIR: mkdtempSync(path.join(os.tmpdir(), 'dev-secret-')) };
  expect(clientKeySecret(env)).toBeUndefined();
  const secret = devKeySecret(env);
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  // Kept: a restart of npm run dev derives the same keys for the runs it left waiting.
  expect(devKeySecret(env)).toBe(secret);
  expect(statSync(path.join(env.DEV_DIR, 'key-secret')).mode & 0o777).toBe(0o600);
  expect(clientKeySecret(env)).toBe(secret);
  const ports = { temporal: 7233, tracker: 4100, model: 4200 };
  expect(devWorkerEnv(env, ports, env.DEV_DIR, secret).AGENT_KEY_SECRET).toBe(secret);
  expect(devWorkerEnv({ ...env, AGENT_KEY_SECRET: 'mine' }, ports, env.DEV_DIR, secret).AGENT_KEY_SECRET).toBe('mine');
  expect(clientKeySecret({ ...env, AGENT_KEY_SECRET: 'mine' })).toBe('mine');
});

test('npm run dev requires the tokens the environment names, as npm run tracker and npm run codec do', async () => {
  const { devTokens } = await import('../clients/dev-env');
  expect(devTokens({})).toEqual({ tracker: [] });
  expect(devTokens({ TRACKER_TOKEN: 't', TRACKER_TOKENS: 'a, b', CODEC_TOKEN: 'c' })).toEqual({
    tracker: ['t', 'a', 'b'],
    codec: 'c',
  });
});

test("a config's summary line says its own figures, even through this repository's npm run sweep", async () => {
  const { statsFormatterOf } = await import('../sweep/cli/command');
  const table = { rows: [], suite: () => ({}) as never, describe: 'a table', formatStats: () => ", the table's own" };
  expect(statsFormatterOf(table, undefined)({ kills: 2 })).toBe(", the table's own");
  // `npm run sweep -- --config FILE`: the table's words would name figures a config has none of.
  expect(statsFormatterOf(table, 'examples/order/fixed.config.ts')({ kills: 2 })).toBe(', kills 2');
  expect(statsFormatterOf(undefined, 'crash-sweep.config.ts')({})).toBe('');
});

test('what a command prints from a run is inert in a CI log: no line of it begins a GitHub Actions command, and the text stays readable', async () => {
  const { inertLines } = await import('../common/cli');
  const fromRun =
    'activity charge keeps failing (attempt 10): boom\n::add-mask::hunter2\n  ::error file=x::planted\r::warning::cr\n##[error]old form';
  const shown = inertLines(`stuck: agent-3: ${fromRun}`);
  for (const line of shown.split('\n')) expect(line).not.toMatch(/^\s*(::|##\[)/);
  expect(shown).toBe(
    'stuck: agent-3: activity charge keeps failing (attempt 10): boom\n| ::add-mask::hunter2\n  | ::error file=x::planted\n| ::warning::cr\n| ##[error]old form',
  );
  // Ordinary output passes as it is.
  expect(inertLines('a :: b\nerror: x: y')).toBe('a :: b\nerror: x: y');
});
