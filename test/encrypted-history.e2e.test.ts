// With TEMPORAL_PAYLOAD_KEY set, the run's task, prompts, tool arguments and results are sealed in
// Temporal's history; the clients, the codec endpoint and the temporal CLI (through it) open them.
import { triageTools } from '../examples/triage/tools';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { toJson } from '../codec/app';
import { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { findTemporalCli } from '../common/temporal-cli';
import { dataConverterFromEnv } from '../store/data-converter';
import { createAgentWorker } from '../workers/create-worker';
import { freePort, startChild, ROOT, type Child } from './helpers/processes';
import { startRun } from './helpers/runs';
import { startSystem, type System } from './helpers/system';

const run = promisify(execFile);
const TASK_QUEUE = 'encrypted-history';
const CANARY = 'zebra-canary-4711';
const keyEnv = { TEMPORAL_PAYLOAD_KEY: 'a'.repeat(64), TEMPORAL_PAYLOAD_KEY_ID: 'k1' };
let system: System;
let worker: Worker;
let running: Promise<void>;
let codecServer: Child;
let codecUrl: string;

beforeAll(async () => {
  system = await startSystem();
  worker = await createAgentWorker({
    connection: system.env.nativeConnection,
    taskQueue: TASK_QUEUE,
    tools: triageTools({ trackerUrl: system.trackers.keyed.url, otherTrackers: 'any' }),
    openaiBaseUrl: `${system.modelUrl}/v1`,
    openaiApiKey: 'test',
    model: 'triage-script',
    // Bundled here, not pre-built: the workflow sandbox takes the failure converter at bundle time.
    dataConverter: dataConverterFromEnv(keyEnv),
  });
  running = worker.run();
  codecServer = startChild('codec/server.ts', ['--port', '0'], keyEnv);
  [, codecUrl] = await codecServer.waitFor(/codec server listening on (http:\/\/\S+) /);
}, 120_000);

afterAll(async () => {
  await codecServer?.kill('SIGTERM');
  worker?.shutdown();
  await running;
  await system?.close();
});

/** The history as the server stores it, in bytes, read by a client with no key. */
async function rawHistory(workflowId: string): Promise<Buffer> {
  const history = await system.env.client.workflow.getHandle(workflowId).fetchHistory();
  return Buffer.from(temporal.api.history.v1.History.encode(history).finish());
}

test("with a payload key, the history holds none of the run's text; status, the codec endpoint and the temporal CLI show it", async () => {
  const sealed = new Client({ connection: system.env.connection, dataConverter: dataConverterFromEnv(keyEnv) });
  const { handle } = await startRun(sealed, TASK_QUEUE, { repo: 'sealed', task: `Checkout fails: ${CANARY}` });
  const result = await handle.result();
  expect(JSON.stringify(result.calls)).toContain(CANARY); // the model read the task, the tracker got it
  expect(system.trackers.keyed.store.contents('sealed')[0].body).toContain(CANARY);
  const raw = await rawHistory(handle.workflowId);
  expect(raw.includes(CANARY)).toBe(false);
  expect(raw.includes('binary/encrypted')).toBe(true);

  // The same check finds the text in a run started without the key (its input is plain).
  const { handle: plain } = await startRun(system.env.client, TASK_QUEUE, {
    repo: 'plain',
    task: `Checkout fails: ${CANARY}`,
  });
  await plain.result().catch(() => undefined);
  expect((await rawHistory(plain.workflowId)).includes(CANARY)).toBe(true);

  // npm run status, with the key, reads the run's calls in plain text.
  const env = { ...process.env, ...keyEnv, TEMPORAL_ADDRESS: system.env.address, TASK_QUEUE };
  const { stdout: status } = await run(
    process.execPath,
    ['--import', 'tsx', 'clients/status.ts', handle.workflowId, '--json'],
    { cwd: ROOT, env },
  );
  expect(status).toContain(CANARY);

  // The codec endpoint opens the sealed input of the history; the Web UI's origin passes its CORS check.
  const history = await system.env.client.workflow.getHandle(handle.workflowId).fetchHistory();
  const input = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads!;
  const decoded = await fetch(`${codecUrl}/decode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default' },
    body: JSON.stringify({ payloads: input.map((p) => toJson(p as Payload)) }),
  });
  const { payloads } = (await decoded.json()) as { payloads: Array<{ data: string }> };
  expect(Buffer.from(payloads[0].data, 'base64').toString()).toContain(CANARY);
  const preflight = await fetch(`${codecUrl}/decode`, {
    method: 'OPTIONS',
    headers: { origin: 'http://localhost:8233', 'access-control-request-method': 'POST' },
  });
  expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([
    204,
    'http://localhost:8233',
  ]);
  const foreign = await fetch(`${codecUrl}/decode`, { method: 'OPTIONS', headers: { origin: 'http://evil.example' } });
  expect(foreign.status).toBe(403);

  // The temporal CLI, through the codec endpoint, shows the history in plain text.
  const cli = findTemporalCli()!;
  const show = (extra: string[]) =>
    run(cli, ['workflow', 'show', '--address', system.env.address, '-w', handle.workflowId, '--detailed', ...extra]);
  expect((await show(['--codec-endpoint', codecUrl])).stdout).toContain(CANARY);
  expect((await show([])).stdout).not.toContain(CANARY);
}, 180_000);

test('failed activities, a failed workflow and refused signals leave no plain text (nor a stack trace) in history', async () => {
  const sealed = new Client({ connection: system.env.connection, dataConverter: dataConverterFromEnv(keyEnv) });
  // Every tool call fails: the tracker's URL names a port nothing listens on (taken, then freed), and the canary.
  const port = await freePort();
  const { handle: failing } = await startRun(sealed, TASK_QUEUE, {
    repo: 'sealed-failures',
    trackerUrl: `http://127.0.0.1:${port}/${CANARY}`,
    receiverDownMs: 1,
  });
  await failing.signal('approve', { callId: CANARY, approved: 'yes', by: CANARY });
  const result = await failing.result();
  expect(result.calls.map((c) => c.status)).toEqual(['failed', 'failed', 'failed']);
  expect(result.calls[0].result).toContain(CANARY); // the client with the key reads the message
  expect((await failing.query('pending')) as unknown).toMatchObject({
    refusedDecisions: [{ callId: CANARY, by: CANARY, why: 'approved must be true or false, not "yes"' }],
  });
  // The workflow itself fails, with the canary in its message (an MCP server the worker does not have).
  const { handle: failed } = await startRun(sealed, TASK_QUEUE, { repo: 'sealed-failed', mcpServers: [CANARY] });
  const err = (await failed.result().catch((e: unknown) => e)) as Error & { cause?: Error };
  expect(err.cause?.message).toContain(`cannot list the tools of MCP servers ${CANARY}`);

  for (const workflowId of [failing.workflowId, failed.workflowId]) {
    const raw = await rawHistory(workflowId);
    expect(raw.includes(CANARY)).toBe(false);
    expect(raw.includes(ROOT)).toBe(false); // no stack trace with the worker's paths
    expect(raw.includes('Encoded failure')).toBe(true);
  }
}, 120_000);

test('a payload sealed with an old key opens once that key is among the old ones, and a missing key is named', async () => {
  const { codecFromEnv } = await import('../common/payload-codec');
  const [sealed] = await codecFromEnv(keyEnv)!.encode([
    { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"hello"') },
  ]);
  const rotated = { TEMPORAL_PAYLOAD_KEY: 'b'.repeat(64), TEMPORAL_PAYLOAD_KEY_ID: 'k2' };
  await expect(codecFromEnv(rotated)!.decode([sealed])).rejects.toThrow(
    'a payload was sealed with key "k1", which this process does not have',
  );
  const [opened] = await codecFromEnv({ ...rotated, TEMPORAL_PAYLOAD_OLD_KEYS: `k1:${'a'.repeat(64)}` })!.decode([
    sealed,
  ]);
  expect(Buffer.from(opened.data!).toString()).toBe('"hello"');
  expect(() => codecFromEnv({ TEMPORAL_PAYLOAD_KEY: 'short' })).toThrow(/TEMPORAL_PAYLOAD_KEY must be 32 bytes/);
});
