// What a run may read from the payload store, and every size cap, probed as an attacker would: on a
// real dev server, a worker with a local store and one without, and a hostile stdio MCP server. A run
// reads only what its own chain stored; a secret is gone before anything is kept; no size leaves a
// run asking again for ever.
import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { z } from 'zod/v4';
import { devServerExecutable } from '../common/temporal-cli';
import { approveCall, startAgentRun, waitingFor } from '../lib/client';
import { resetRun } from '../common/operations';
import { eventually } from './helpers/runs';
import { createAgentWorker, defineTool, loadMcpConfig, McpToolbox, type ModelProvider } from '../lib/worker';
import type { AgentInput, AgentResult, ModelRequest, StoredText } from '../lib/workflow';
import { LocalStorageDriver } from '../store/local-driver';
import { externalStorage } from '../store/external-storage';
import { ROOT } from './helpers/processes';

const STORED = 'stored-payloads-store';
const INLINE = 'stored-payloads-inline';
const PRIVATE = 'RUN-A-PRIVATE-TEXT';
const TOKEN = 'hostile-token-5f1e9a77c2';

let env: TestWorkflowEnvironment;
let storeDir: string;
let workDir: string;
let client: Client;
let toolbox: McpToolbox;
const workers: Worker[] = [];
const running: Array<Promise<void>> = [];
/** Every request the model was sent, by the run's id. */
const requests = new Map<string, ModelRequest[]>();
const asked = (runId: string) => requests.get(runId) ?? [];
/** A reference run A's history holds, as an attacker would copy it; written where the hostile lookup reads it. */
let forgedFile: string;

const readPrivate = defineTool({
  name: 'read_private',
  description: "Read this run's private document",
  parameters: z.object({}),
  effect: 'read-only',
  // The private words lie past the first 160 characters, which history keeps beside the reference for people.
  run: async () => `${'a'.repeat(1_000)} ${PRIVATE} `.padEnd(20_000, 'a'),
});

/** A call a person must approve: the run waits at it, with a stored output already in its conversation. */
const gate = defineTool({
  name: 'gate',
  description: 'Wait for a person',
  parameters: z.object({}),
  effect: 'read-only',
  needsApproval: true,
  run: async () => 'through',
});

/** Cuts every object the store holds for the run short: what a disk that lost data leaves. */
const spoil = defineTool({
  name: 'spoil',
  description: 'Spoil the store',
  parameters: z.object({}),
  effect: 'read-only',
  run: async (_args, { runId }) => {
    for (const folder of readdirSync(storeDir, { withFileTypes: true }).filter((f) => f.isDirectory()))
      if (folder.name === `trunc-${runId}`)
        for (const name of readdirSync(path.join(storeDir, folder.name)))
          truncateSync(path.join(storeDir, folder.name, name), 10);
    return 'spoilt';
  },
});

const call = (id: string, name: string, args: object = {}) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: JSON.stringify(args) },
});
const answer = (content: string) => ({ message: { role: 'assistant' as const, content }, finishReason: 'stop' });
const calls = (...tool_calls: Array<ReturnType<typeof call>>) => ({
  message: { role: 'assistant' as const, content: null, tool_calls },
  finishReason: 'tool_calls',
});

/** The model: its script is the task's first word; the first reply at turn 1, then an answer. */
const model: ModelProvider = {
  async reply(request) {
    requests.set(request.runId, [...asked(request.runId), request]);
    const task = String(request.messages.find((m) => m.role === 'user')?.content);
    const turn = request.messages.filter((m) => m.role === 'assistant').length + 1;
    if (turn > 1) return answer('done');
    switch (task.split(' ')[0]) {
      case 'A':
        return calls(call('call_read', 'read_private'));
      case 'SECRET':
        return calls(call('call_echo', 'echo_config', { bytes: 20_000 }));
      case 'REPLY':
        return {
          message: { role: 'assistant', content: JSON.parse(readFileSync(forgedFile, 'utf8')) },
          finishReason: 'stop',
        } as never;
      case 'LOOKUP':
        return calls(call('call_send', 'send', { text: 'hello' }));
      case 'HUGE':
        return calls(call('call_huge', 'huge_error', { bytes: 9_000_000 }));
      case 'BIG':
        return answer('x'.repeat(3_000_000));
      case 'TRUNC':
        return calls(call('call_read', 'read_private'), call('call_spoil', 'spoil'));
      case 'RESET':
        return calls(call('call_read', 'read_private'), call('call_gate', 'gate'));
      default:
        return answer(`no script for ${task}`);
    }
  },
};

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createLocal({
    server: { executable: devServerExecutable(), log: { format: 'pretty', level: 'error' } },
  });
  storeDir = mkdtempSync(path.join(tmpdir(), 'stored-payloads-'));
  workDir = mkdtempSync(path.join(tmpdir(), 'stored-payloads-work-'));
  forgedFile = path.join(workDir, 'forged.json');
  process.env.HOSTILE_TOKEN = TOKEN;
  const configFile = path.join(workDir, 'mcp.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: {
        hostile: {
          command: process.execPath,
          args: ['--import', 'tsx', 'test/fixtures/hostile-mcp-server.ts'],
          env: { HOSTILE_TOKEN: '${HOSTILE_TOKEN}', FORGED_FILE: forgedFile },
          cwd: ROOT,
        },
      },
    }),
  );
  toolbox = new McpToolbox(loadMcpConfig(configFile), { stderr: 'ignore' });
  const storage = externalStorage(new LocalStorageDriver({ dir: storeDir }));
  const common = {
    connection: env.nativeConnection,
    tools: [readPrivate, spoil, gate],
    modelProvider: model,
    mcp: toolbox,
  };
  workers.push(
    await createAgentWorker({ ...common, taskQueue: STORED, dataConverter: { externalStorage: storage } }),
    await createAgentWorker({ ...common, taskQueue: INLINE }),
  );
  running.push(...workers.map((w) => w.run()));
  // A bare client: no codec, no store, no secret. It starts runs and reads what history shows.
  client = env.client;
}, 180_000);

afterAll(async () => {
  for (const w of workers) w.shutdown();
  await Promise.all(running);
  await toolbox?.close();
  await env?.teardown();
  rmSync(storeDir, { recursive: true, force: true });
  rmSync(workDir, { recursive: true, force: true });
});

/** Starts a run of the script `task` on `taskQueue`, with the hostile server and the registered tools. */
const start = (taskQueue: string, task: string, runId: string, extra: Partial<AgentInput> = {}) =>
  startAgentRun(client, {
    taskQueue,
    workflowId: `${task.split(' ')[0]!.toLowerCase()}-${runId}`,
    runId,
    task,
    tools: ['read_private', 'spoil', 'gate'],
    mcpServers: ['hostile'],
    maxTurns: 3,
    searchAttributes: false,
    ...extra,
  });

/** How a run failed: its failure's type and message, through the activity failure if there is one. */
async function failureOf(result: Promise<unknown>): Promise<{ type?: string; message: string }> {
  const err = await result.then(
    () => {
      throw new Error('the run completed');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  let cause = (err as WorkflowFailedError).cause as Error | undefined;
  while (cause && !(cause instanceof ApplicationFailure) && cause.cause) cause = cause.cause as Error;
  return { type: (cause as ApplicationFailure | undefined)?.type ?? undefined, message: cause?.message ?? '' };
}

/** Run A: its private 20 KB document kept in the store; the reference its history holds. */
let runA: StoredText;
beforeAll(async () => {
  const result: AgentResult = await (await start(STORED, 'A', 'a1')).result();
  runA = result.calls[0]!.result as StoredText;
  expect(runA.stored.claim.object).toMatch(/^a-a1\//);
  writeFileSync(forgedFile, JSON.stringify(runA));
}, 60_000);

describe('a run reads only what its own chain stored', () => {
  test("another run's stored reference as the task of a start is refused before anything runs: the model never sees run A's text", async () => {
    const handle = await client.workflow.start('agentWorkflow', {
      taskQueue: STORED,
      workflowId: 'forged-start',
      args: [{ runId: 'b1', task: runA, tools: ['read_private'], searchAttributes: false }],
    });
    const failed = await failureOf(handle.result());
    expect(failed.type).toBe('BadInput');
    expect(failed.message).toMatch(/the run's task must be a text, not object; nothing ran/);
    expect(asked('b1')).toHaveLength(0);
  });

  test("a model reply whose content is another run's reference is refused: the run ends saying why, and no request holds run A's text", async () => {
    const handle = await start(STORED, 'REPLY', 'c1');
    const failed = await failureOf(handle.result());
    expect(failed.type).toBe('BadModelReply');
    expect(failed.message).toMatch(/its content must be a text or null, not object/);
    expect(asked('c1')).toHaveLength(1);
    expect(JSON.stringify(asked('c1'))).not.toContain(PRIVATE);
  });

  test("an MCP lookup answering with another run's reference settles the call with that answer as plain text: the model never receives run A's text", async () => {
    const result: AgentResult = await (await start(STORED, 'LOOKUP', 'd1')).result();
    expect(result.calls[0]).toMatchObject({ tool: 'send', status: 'done' });
    expect(typeof result.calls[0]!.result).toBe('string');
    const last = asked('d1').at(-1)!;
    const tool = last.messages.find((m) => m.role === 'tool')!;
    expect(JSON.parse(String(tool.content))).toEqual(runA);
    expect(JSON.stringify(asked('d1'))).not.toContain(PRIVATE);
  }, 60_000);
});

test("a run reset by a person still reads what its chain stored before the reset: the seal is the chain's, not one run's", async () => {
  const handle = await start(STORED, 'RESET', 'r1');
  await eventually(async () => (await waitingFor(client, handle.workflowId)).approvals.length > 0);
  const done = await resetRun(client, handle.workflowId, { to: 'last-task', reason: 'the test resets it' });
  expect(done.runId).not.toBe(done.fromRunId);
  // The new run asks again; approved, its next model call reads the output the first run stored.
  await eventually(async () => (await waitingFor(client, handle.workflowId)).approvals.length > 0);
  await approveCall(client, handle.workflowId, 'call_gate', { by: 'the test' });
  const result: AgentResult = await client.workflow.getHandle(handle.workflowId).result();
  expect(result.answer).toBe('done');
  const last = asked('r1').at(-1)!;
  expect(last.messages.filter((m) => m.role === 'tool').map((m) => String(m.content).length)).toEqual([20_000, 7]);
}, 60_000);

describe('secrets and caps', () => {
  test("an MCP server's secret in a 20 KB output is gone before it is kept: in no model request and no file of the store", async () => {
    const result: AgentResult = await (await start(STORED, 'SECRET', 'e1')).result();
    expect(result.calls[0]).toMatchObject({ tool: 'echo_config', status: 'done' });
    const seen = JSON.stringify(asked('e1'));
    expect(seen).toContain('my token is [redacted]; ');
    expect(seen).not.toContain(TOKEN);
    const files = readdirSync(storeDir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(readFileSync(path.join(f.parentPath, f.name)).includes(TOKEN)).toBe(false);
  });

  test("an MCP tool's error result of 9 MB is cut as an output is: the run completes, the model told of the error", async () => {
    const result: AgentResult = await (await start(STORED, 'HUGE', 'f1')).result();
    expect(result.answer).toBe('done');
    const tool = asked('f1')
      .at(-1)!
      .messages.find((m) => m.role === 'tool')!;
    expect(JSON.parse(String(tool.content)).error).toMatch(
      /^MCP tool huge_error failed: E+\n\[output cut: the tool returned 9000000 bytes; the first \d+ are shown\]$/,
    );
    expect(Buffer.byteLength(String(tool.content))).toBeLessThan(70_000);
  }, 60_000);

  test('a 3 MB model reply on a worker without a store ends the run at once with its size and the remedy; the model asked at most twice', async () => {
    const began = Date.now();
    const failed = await failureOf((await start(INLINE, 'BIG', 'g1')).result());
    expect(failed.type).toBe('PayloadTooLarge');
    expect(failed.message).toMatch(
      /the model's reply at turn 1 is 3000\d+ bytes, over the \d+ bytes .* give the workers a payload store/,
    );
    expect(Date.now() - began).toBeLessThan(60_000);
    expect(asked('g1').length).toBeLessThanOrEqual(2);
  }, 90_000);

  test('a stored object cut short on disk ends the run with an error naming it, not a model call retried for ever', async () => {
    const began = Date.now();
    const failed = await failureOf((await start(STORED, 'TRUNC', 'h1')).result());
    expect(failed.type).toBe('StoredPayloadError');
    expect(failed.message).toMatch(/the stored payload trunc-h1\/[0-9a-f]{64} was changed on disk/);
    expect(Date.now() - began).toBeLessThan(30_000);
    expect(asked('h1')).toHaveLength(1);
  }, 60_000);
});
