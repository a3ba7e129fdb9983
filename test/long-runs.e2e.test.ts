// Long runs with large outputs, on a real dev server with its default limits: an agent that reads pages
// for many turns, with a payload store (history grows with the work, not its square; the conversation
// travels by reference) and without one (a payload over Temporal's limit fails the run at once, with the
// size and the remedy, instead of failing its workflow task for ever).
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { z } from 'zod/v4';
import { temporal } from '@temporalio/proto';
import { devServerExecutable } from '../common/temporal-cli';
import { connectTemporal } from '../common/temporal-connection';
import { chainHistories, historySizes } from '../common/history-events';
import { startAgentRun } from '../lib/client';
import { createAgentWorker, defineTool, type ModelProvider } from '../lib/worker';
import type { ModelRequest } from '../lib/workflow';
import type { AgentResult } from '../lib/workflow';
import { LocalStorageDriver } from '../store/local-driver';
import { externalStorage } from '../store/external-storage';
import { storeOrphans } from '../agent-sweep/store-orphans';
import { defaultPayloadConverter } from '@temporalio/common';
import { ROOT, scriptFile } from './helpers/processes';

/** `npm run status -- ID` as a user runs it, with the store's folder; its exit code and output. */
async function status(workflowId: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', scriptFile('status'), workflowId],
      { cwd: ROOT, env: { ...process.env, TEMPORAL_ADDRESS: env.address, AGENT_PAYLOAD_DIR: storeDir } },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const STORED = 'long-runs-stored';
const INLINE = 'long-runs-inline';

/** A page of `bytes` ASCII bytes that says which page it is. */
const page = (n: number, bytes: number) => `page ${n}:`.padEnd(bytes, 'abcdefghij');

const fetchPage = defineTool({
  name: 'fetch_page',
  description: 'Fetch a page of a document',
  parameters: z.object({ n: z.number(), bytes: z.number() }),
  effect: 'read-only',
  run: async ({ n, bytes }) => page(n, bytes),
});

const fetchCapped = defineTool({
  name: 'fetch_capped',
  description: 'Fetch a page, shown up to 1000 bytes',
  parameters: z.object({ n: z.number(), bytes: z.number() }),
  effect: 'read-only',
  maxOutputBytes: 1000,
  run: async ({ n, bytes }) => page(n, bytes),
});

/** The model: asks for `turns` pages of `bytes` (task `TOOL TURNS BYTES`), then answers with what it read. */
const requests = new Map<string, ModelRequest[]>();
const readingModel: ModelProvider = {
  async reply(request) {
    requests.set(request.runId, [...(requests.get(request.runId) ?? []), request]);
    const [tool, turns, bytes] = String(request.messages.find((m) => m.role === 'user')?.content).split(' ');
    const turn = request.messages.filter((m) => m.role === 'assistant').length + 1;
    if (turn > Number(turns)) {
      const read = request.messages.filter((m) => m.role === 'tool').map((m) => String(m.content).length);
      return { message: { role: 'assistant', content: `read ${read.join(',')}` }, finishReason: 'stop' };
    }
    const call = {
      id: `call_${turn}`,
      type: 'function' as const,
      function: { name: tool!, arguments: JSON.stringify({ n: turn, bytes: Number(bytes) }) },
    };
    return { message: { role: 'assistant', content: null, tool_calls: [call] }, finishReason: 'tool_calls' };
  },
};

let env: TestWorkflowEnvironment;
let storeDir: string;
let driver: LocalStorageDriver;
/** A client that reads what the workers stored, as every client of a store's runs must. */
let client!: Client;
const workers: Worker[] = [];
const running: Array<Promise<void>> = [];

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createLocal({
    server: { executable: devServerExecutable(), log: { format: 'pretty', level: 'error' } },
  });
  storeDir = mkdtempSync(path.join(tmpdir(), 'payload-store-'));
  driver = new LocalStorageDriver({ dir: storeDir });
  const common = { connection: env.nativeConnection, tools: [fetchPage, fetchCapped], modelProvider: readingModel };
  // External Storage from 16 KiB, so a continue-as-new input and a result of a few pages pass it.
  const storage = externalStorage(driver, 16 * 1024);
  client = new Client({ connection: env.client.connection, dataConverter: { externalStorage: storage } });
  workers.push(
    await createAgentWorker({ ...common, taskQueue: STORED, dataConverter: { externalStorage: storage } }),
    await createAgentWorker({ ...common, taskQueue: INLINE }),
  );
  running.push(...workers.map((w) => w.run()));
}, 180_000);

afterAll(async () => {
  for (const w of workers) w.shutdown();
  await Promise.all(running);
  await env?.teardown();
  rmSync(storeDir, { recursive: true, force: true });
});

/** Starts a reading run: `turns` pages of `bytes` through `tool`. */
const read = (taskQueue: string, tool: string, turns: number, bytes: number, extra: object = {}) =>
  startAgentRun(client, {
    taskQueue,
    task: `${tool} ${turns} ${bytes}`,
    tools: [tool],
    maxTurns: turns + 1,
    ...extra,
  });

/** Files in the store's folder, and their bytes. */
function storeContents(): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const folder of readdirSync(storeDir, { withFileTypes: true }).filter((f) => f.isDirectory()))
    for (const name of readdirSync(path.join(storeDir, folder.name))) {
      files++;
      bytes += statSync(path.join(storeDir, folder.name, name)).size;
    }
  return { files, bytes };
}

describe('long runs with large outputs', () => {
  test('with a payload store, 20 pages of 100 KB over three continue-as-new runs: done, history under 1.5x the pages plus 10 KB a turn, no payload near the limit, the model shown every page', async () => {
    const turns = 20;
    const bytes = 100_000;
    const handle = await read(STORED, 'fetch_page', turns, bytes, { turnsPerRun: 8 });
    const result: AgentResult = await handle.result();
    expect(result.answer).toBe(`read ${Array(turns).fill(bytes).join(',')}`);
    expect(result.calls).toHaveLength(turns);

    const histories = await chainHistories(
      client,
      handle.workflowId,
      (handle as typeof handle & { firstExecutionRunId: string }).firstExecutionRunId,
    );
    expect(histories.length).toBe(3);
    const measured = histories.map(historySizes);
    const total = measured.reduce((n, s) => n + s.bytes, 0);
    expect(total).toBeLessThanOrEqual(1.5 * turns * bytes + 10_000 * turns);
    // Every page was stored, not written into history.
    expect(total).toBeLessThan(turns * bytes);
    expect(Math.max(...measured.map((s) => s.largestPayload))).toBeLessThan(64 * 1024);
    // The model got the whole conversation each turn: every page before it.
    const seen = requests.get(result.runId)!;
    expect(seen).toHaveLength(turns + 1);
    expect(
      seen
        .at(-1)!
        .messages.filter((m) => m.role === 'tool')
        .map((m) => m.content),
    ).toEqual(Array.from({ length: turns }, (_, i) => page(i + 1, bytes)));
    // npm run status reads the run, its payloads in the store.
    const shown = await status(handle.workflowId);
    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/: completed/);
    // Every object in the store is named by the run's histories, directly or through a stored turn;
    // one that a kill left between its write and history would not be, and is counted.
    expect(await storeOrphans(client, handle.workflowId, driver)).toBe(0);
    const target = { kind: 'workflow' as const, namespace: 'default', id: handle.workflowId };
    const stray = await driver.store({ target }, [defaultPayloadConverter.toPayload('written, never named')]);
    expect(await storeOrphans(client, handle.workflowId, driver)).toBe(1);
    rmSync(path.join(storeDir, stray[0]!.claimData.object!));
    // Each page is stored once, with one small record per model call.
    const stored = storeContents();
    expect(stored.bytes).toBeGreaterThanOrEqual(turns * bytes);
    expect(stored.bytes).toBeLessThan(1.2 * turns * bytes);
  }, 120_000);

  test("with a store, 30 pages of 1 KB: the inputs to continue as new and the result pass the store's threshold and are stored by Temporal's External Storage; the client reads the result back", async () => {
    const handle = await read(STORED, 'fetch_page', 30, 1_000, { turnsPerRun: 12 });
    const result: AgentResult = await handle.result();
    expect(result.calls).toHaveLength(30);
    expect(result.calls.map((c) => c.result)).toEqual(Array.from({ length: 30 }, (_, i) => page(i + 1, 1_000)));
    // The history holds a reference where the large payloads were: the continue-as-new inputs and the result.
    const events = (await env.client.workflow.getHandle(handle.workflowId).fetchHistory()).events!;
    const last = events.at(-1)!.workflowExecutionCompletedEventAttributes!.result!.payloads![0]!;
    expect(Buffer.from(last.metadata!.encoding!).toString()).toBe('json/protobuf');
    expect(last.data!.length).toBeLessThan(1_000);
  }, 120_000);

  test('without a store, pages of 600 KB: the model call that would pass 2 MiB fails the run at once, naming the size, the limit and the remedy; its history of over 4 MB reads with large messages allowed', async () => {
    const handle = await read(INLINE, 'fetch_page', 10, 600_000);
    const failure = await handle.result().then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause as Error & { type?: string };
    expect(cause.type).toBe('PayloadTooLarge');
    // The server suggests continuing as new past a few MB of history: the input carrying the chain is what meets the limit.
    expect(cause.message).toMatch(
      /^the (model call's input at turn \d+|input to continue as new) is \d+ bytes, over the 2080768 bytes Temporal takes/,
    );
    expect(cause.message).toMatch(/payload store/);

    const big = await connectTemporal(env.address);
    try {
      // gRPC's default of 4 MiB would refuse it (RESOURCE_EXHAUSTED, retried by the SDK for some 40 s).
      const whole = (await new Client({ connection: big }).workflow.getHandle(handle.workflowId).fetchHistory())
        .events!;
      expect(historySizes(whole).bytes).toBeGreaterThan(4 * 1024 * 1024);
      // Failed in the workflow task that met the limit: no task failed on it, none retried.
      const names = whole.map((e) => temporal.api.enums.v1.EventType[e.eventType ?? 0]);
      expect(names).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
      expect(names.at(-1)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_FAILED');
      // npm run status reads it too (it exited 1 on a 5 MB history before: RESOURCE_EXHAUSTED).
      const shown = await status(handle.workflowId);
      expect([shown.code, shown.stderr]).toEqual([0, '']);
      expect(shown.stdout).toMatch(/: failed/);
    } finally {
      await big.close();
    }
  }, 120_000);

  test('a run whose conversation would pass its maxConversationBytes fails before the model is asked again, naming the size and the cap', async () => {
    const handle = await read(STORED, 'fetch_page', 5, 30_000, { maxConversationBytes: 100_000 });
    const failure = await handle.result().then(
      () => null,
      (err: unknown) => (err as WorkflowFailedError).cause as Error & { type?: string },
    );
    expect(failure?.type).toBe('ConversationTooLarge');
    expect(failure?.message).toMatch(
      /^the conversation is 1\d{5} bytes, over this run's maxConversationBytes of 100000/,
    );
    // Four pages were read; the fifth model call was never made.
    expect(requests.get(handle.workflowId.replace(/^agent-/, ''))).toHaveLength(4);
  }, 60_000);

  test("a tool's output past its maxOutputBytes is cut, and the model is told how much", async () => {
    const handle = await read(INLINE, 'fetch_capped', 1, 5_000);
    const result = await handle.result();
    const shown = requests
      .get(result.runId)!
      .at(-1)!
      .messages.find((m) => m.role === 'tool')!.content!;
    expect(shown.startsWith(page(1, 1000))).toBe(true);
    expect(shown).toContain('[output cut: the tool returned 5000 bytes; the first 1000 are shown]');
  }, 60_000);
});
