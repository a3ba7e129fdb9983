// A sweep config is held to its schema (sweep/config/config-schema.ts): a field no level has is refused
// with the nearest known name, a wrong type with what was expected, at the top, in a row and in
// `points`; the command refuses such a file with exit status 2 before it starts anything; every config
// of this repository loads; docs/config.md's field list is the schema's. The same for the worker's and
// the start's options given from plain JavaScript, and for the MCP config file.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { nearest } from '../common/fields';
import { fieldTables } from '../sweep/config/config-schema';
import { configProblems, loadSweepConfig } from '../sweep/config/load-config';
import type { Client } from '@temporalio/client';
import { parseMcpConfig } from '../activities/mcp-config';
import { configFromEnv } from '../lib/client';
import { temporalFromEnv } from '../common/config';
import { startAgentRun, type StartAgentRunOptions } from '../lib/client';
import { createAgentWorker, type AgentWorkerOptions } from '../lib/worker';
import { ROOT } from './helpers/processes';

const base = {
  workflowsPath: 'w',
  activities: () => ({}),
  start: async () => null,
  check: () => ({ dups: 0, missing: 0 }),
};

test('a misspelt field at the top, in a row and in points: refused with the nearest known name', () => {
  expect(configProblems({ ...base, plugns: [], workflowPath: 'x' })).toEqual([
    'plugns is not a config field (did you mean plugins?)',
    'workflowPath is not a config field (did you mean workflowsPath?)',
  ]);
  expect(configProblems({ ...base, rows: [{ name: 'a' }, { name: 'b', slowActivitis: [] }] })).toEqual([
    'rows[1].slowActivitis is not a row field (did you mean slowActivities?)',
  ]);
  expect(configProblems({ ...base, points: { htp: false } })).toEqual([
    'points.htp is not a points field (did you mean http?)',
  ]);
  // Nothing near: no guess.
  expect(configProblems({ ...base, colour: 'blue' })).toEqual(['colour is not a config field']);
});

test('a wrong type says what it expected; a missing required field says what it is', () => {
  expect(configProblems({ ...base, label: 42, rows: [{ name: 'a', faults: 'retry' }] })).toEqual([
    'label is the number 42, not string',
    'rows[0].faults is the text "retry", not string[]',
  ]);
  const { check, ...noCheck } = base;
  void check;
  expect(configProblems(noCheck)).toEqual(['check is missing ((ctx) => counts: counts one ended run’s damage)']);
  expect(configProblems([base])).toEqual(['its default export is not a config object (defineSweep({ ... }))']);
});

test('the nearest name: a typo or a case, not a different word', () => {
  expect(nearest('Plugins', ['plugins', 'points'])).toBe('plugins');
  expect(nearest('activites', ['activities', 'activityTimeouts'])).toBe('activities');
  expect(nearest('zzz', ['plugins', 'points'])).toBeUndefined();
});

test('the command refuses a misspelt config with exit status 2, each problem on a line, before it starts anything', async () => {
  const file = path.join('test', 'fixtures', 'configs', 'misspelt.config.ts');
  const started = performance.now();
  const failed = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'sweep/cli/crash-sweep.ts', '--config', file],
    { cwd: ROOT },
  ).then(
    () => null,
    (err: { code: number; stdout: string; stderr: string }) => err,
  );
  const seconds = (performance.now() - started) / 1000;
  expect(failed?.code).toBe(2);
  expect(failed?.stderr.split('\n').filter((l) => l.startsWith(file))).toEqual([
    `${file}: label is the number 42, not string`,
    `${file}: plugns is not a config field (did you mean plugins?)`,
    `${file}: workflowPath is not a config field (did you mean workflowsPath?)`,
    `${file}: rows[0].slowActivitis is not a row field (did you mean slowActivities?)`,
  ]);
  // Nothing started: no sweep line, no table.
  expect(failed?.stderr).not.toContain('crash sweep:');
  expect(failed?.stdout).toBe('');
  // Said, not asserted (the machine is shared): how long the refusal took.
  process.stderr.write(`a misspelt config refused in ${seconds.toFixed(1)} s\n`);
}, 30_000);

test("every config of this repository's examples and test fixtures that should load, loads", () => {
  const refused = new Set([
    'bad-fault',
    'bad-server',
    'bad-timeouts',
    'missing-check',
    'missing-module',
    'misspelt',
    'throws',
  ]);
  const files = [
    ...readdirSync(path.join(ROOT, 'examples'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.config.ts'))
      .map((f) => path.join(ROOT, 'examples', f)),
    ...readdirSync(path.join(ROOT, 'test', 'fixtures', 'configs'))
      .filter((f) => /\.config\.(ts|js)$/.test(f) && !refused.has(f.replace(/\.config\.(ts|js)$/, '')))
      .map((f) => path.join(ROOT, 'test', 'fixtures', 'configs', f)),
    path.join(ROOT, 'test', 'fixtures', 'scratch-project', 'crash-sweep.config.ts'),
  ];
  expect(files.length).toBeGreaterThan(20);
  for (const f of files) expect(() => loadSweepConfig(f)).not.toThrow();
});

test("docs/config.md's field list is the schema's, word for word", () => {
  const docs = readFileSync(path.join(ROOT, 'docs', 'config.md'), 'utf8');
  expect(docs).toContain(fieldTables());
});

test("the worker's and the start's options from plain JavaScript, and the MCP config file: a misspelt field refused with the nearest name", async () => {
  // Before anything connects or starts: the options are the first thing read.
  const worker = await createAgentWorker({ taskQueue: 'q', tols: [] } as unknown as AgentWorkerOptions).catch(
    (e: Error) => e,
  );
  expect((worker as Error).message).toBe('tols is not an option of createAgentWorker (did you mean tools?)');
  const start = await startAgentRun(
    {} as Client,
    {
      taskQueue: 'q',
      task: 't',
      tools: ['x'],
      maxTurn: 3,
    } as unknown as StartAgentRunOptions,
  ).catch((e: Error) => e);
  expect((start as Error).message).toBe('maxTurn is not an option of startAgentRun (did you mean maxTurns?)');
  expect(() => parseMcpConfig('{"mcpServers":{},"mcpServer":{}}', 'mcp.json')).toThrow(
    'mcp.json: mcpServer is not a field of an MCP config (did you mean mcpServers?)',
  );
  expect(() => parseMcpConfig('{"mcpServers":{"t":{"comand":"node"}}}', 'mcp.json')).toThrow(
    'mcp.json: mcpServers.t.comand is not a field of an MCP server (did you mean command?)',
  );
});

test('an environment variable the loop reads and cannot use is named, never replaced by its default', () => {
  expect(() => configFromEnv({ TEMPORAL_ADDRESS: 'localhost', OPENAI_BASE_URL: '' })).toThrow(
    'TEMPORAL_ADDRESS is "localhost", not HOST:PORT; OPENAI_BASE_URL is set but empty: give an http(s) URL, or unset it for the default',
  );
  expect(() => configFromEnv({ OPENAI_BASE_URL: 'llm.example/v1' })).toThrow(
    'OPENAI_BASE_URL is "llm.example/v1", not an http(s) URL',
  );
  // Unset: the defaults; set and well formed: taken as they are.
  expect(configFromEnv({}).temporalAddress).toBe('localhost:7233');
  expect(configFromEnv({ TEMPORAL_ADDRESS: 'temporal:7233', MCP_CONFIG: 'mcp.json' })).toMatchObject({
    temporalAddress: 'temporal:7233',
    mcpConfig: 'mcp.json',
  });
});

test("where Temporal is has one reader, the loop's and the sweep's worker processes': it refuses only its own variables", () => {
  expect(temporalFromEnv({})).toEqual({ address: 'localhost:7233', namespace: 'default' });
  expect(temporalFromEnv({ TEMPORAL_ADDRESS: '127.0.0.1:7999', TEMPORAL_NAMESPACE: 'sweeps' })).toEqual({
    address: '127.0.0.1:7999',
    namespace: 'sweeps',
  });
  expect(() => temporalFromEnv({ TEMPORAL_ADDRESS: '', OPENAI_BASE_URL: 'x' })).toThrow(
    'TEMPORAL_ADDRESS is set but empty: give HOST:PORT, or unset it for the default',
  );
  // A variable of the model's is not the sweep worker's business.
  expect(temporalFromEnv({ OPENAI_BASE_URL: 'llm.example/v1' }).address).toBe('localhost:7233');
});
