// The agent's tools over MCP: servers over stdio and HTTP, killed mid-call, keyed and keyless.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { McpToolbox } from '../activities/mcp-toolbox';
import { key } from '../common/key';
import { loadMcpConfig } from '../activities/mcp-config';
import type { McpCrashPlan } from '../agent-sweep/mcp-main';
import { approveSignal, pendingQuery, resolveSignal } from '../workflows/signals';
import { freePort, ROOT, startChild, type Child } from './helpers/processes';
import { eventually, startRun, type TriageRunInput } from './helpers/runs';
import { modelCalls, startWorkerChild, useSystemWithWorker, type System, type WorkerChild } from './helpers/system';

/**
 * The agent's tools reached through MCP servers named in a JSON configuration, as a user would plug
 * them in: the project's tracker server over stdio and over Streamable HTTP, the same server set to
 * die mid-call, and a third-party-style server without annotations.
 */
let system: System;
let httpServer: Child;
let doomed: Child;
/** An MCP server over HTTP on a port of its own, which a test stops and starts again there. */
let restarting: { child: Child | null; port: number; start(): Promise<void> };
let configFile: string;
let toolbox: McpToolbox;
const children: WorkerChild[] = [];
const TASK_QUEUE = 'mcp-agent';
const TIMEOUTS = { modelMs: 10_000, toolMs: 30_000, retryInitialMs: 100, heartbeatMs: 3_000 };
let stateFile: string;

function node(entry: string, args: string[], env: Record<string, string> = {}) {
  return { command: process.execPath, args: ['--import', 'tsx', entry, ...args], env, cwd: ROOT };
}

useSystemWithWorker(TASK_QUEUE, async (started) => {
  system = started;
  const keyed = system.trackers.keyed.url;
  const keyless = system.trackers.keyless.url;
  httpServer = startChild('mcp/server.ts', ['--port', '0', '--tracker', keyed]);
  const [, httpUrl] = await httpServer.waitFor(/listening on (http:\/\/\S+\/mcp)/);
  // Dies at its first create_issue and is never started again.
  const doomedPlan = path.join(system.dir, 'mcp-doomed-plan.json');
  writeFileSync(
    doomedPlan,
    JSON.stringify({
      action: 'die',
      tools: ['create_issue'],
      stateFile: path.join(system.dir, 'doomed.txt'),
    } satisfies McpCrashPlan),
  );
  doomed = startChild('agent-sweep/mcp-main.ts', ['--port', '0', '--tracker', keyless], { MCP_CRASH_PLAN: doomedPlan });
  const [, doomedUrl] = await doomed.waitFor(/listening on (http:\/\/\S+\/mcp)/);

  const port = await freePort();
  restarting = {
    child: null,
    port,
    async start() {
      this.child = startChild('mcp/server.ts', ['--port', String(port), '--tracker', keyed]);
      await this.child.waitFor(/listening on/);
    },
  };
  await restarting.start();

  stateFile = path.join(system.dir, 'mcp-faulted.txt');
  const planFile = path.join(system.dir, 'mcp-plan.json');
  writeFileSync(planFile, JSON.stringify({ action: 'die', stateFile } satisfies McpCrashPlan));
  configFile = path.join(system.dir, 'mcp.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: {
        tracker: node('mcp/server.ts', ['--tracker', keyed]),
        'tracker-http': { url: httpUrl },
        'dies-mid-call': node('agent-sweep/mcp-main.ts', ['--tracker', keyed], { MCP_CRASH_PLAN: planFile }),
        'dies-mid-call-keyless': node('agent-sweep/mcp-main.ts', ['--tracker', keyless], { MCP_CRASH_PLAN: planFile }),
        plain: node('test/fixtures/plain-mcp-server.ts', [], { TRACKER_URL: keyed, REPO: 'plain-clean' }),
        'plain-killed': node('test/fixtures/plain-mcp-server.ts', [], { TRACKER_URL: keyed, REPO: 'plain-killed' }),
        'plain-fails-after': node('test/fixtures/plain-mcp-server.ts', [], {
          TRACKER_URL: keyed,
          REPO: 'plain-fails-after',
          FAIL_AFTER_ACTING: 'create_issue',
        }),
        down: { url: 'http://127.0.0.1:9/mcp' },
        'dies-for-good': { url: doomedUrl },
        restarts: { url: `http://127.0.0.1:${port}/mcp`, receiverDownMs: 60_000 },
      },
    }),
  );
  toolbox = new McpToolbox(loadMcpConfig(configFile), { connectWaitMs: 2_000 });
  return toolbox;
});

afterAll(async () => {
  for (const c of children) await c.kill();
  await httpServer?.kill('SIGTERM');
  await doomed?.kill();
  await restarting?.child?.kill();
});

const run = (input: TriageRunInput) => startRun(system.env.client, TASK_QUEUE, { timeouts: TIMEOUTS, ...input });
const faultedKeys = () => readFileSync(stateFile, 'utf8').split('\n').filter(Boolean);

describe.each([
  ['stdio', 'tracker'],
  ['Streamable HTTP', 'tracker-http'],
])('agent loop with its tools over MCP (%s)', (_transport, server) => {
  test('the triage run files two issues and a comment through the MCP server; each write carries its key to the tracker', async () => {
    const repo = `mcp-clean-${server}`;
    const { handle, runId } = await run({ repo, mcpServers: [server] });
    const result = await handle.result();
    expect(system.trackers.keyed.store.counts(repo)).toEqual({ issues: 2, comments: 1 });
    expect(result.rungs).toEqual({
      call_create_1: 'clean',
      call_create_2: 'clean',
      call_comment_1: 'clean',
      call_search_1: 'clean',
    });
    expect(await modelCalls(system, runId)).toBe(3);
    // The tracker stored each write under key(runId, callId): the key went from the workflow through MCP `_meta`.
    for (const callId of ['call_create_1', 'call_create_2', 'call_comment_1']) {
      const res = await fetch(`${system.trackers.keyed.url}/idempotency/${key(runId, callId)}`);
      expect(res.status).toBe(200);
    }
    // The tools were listed once, into history, before the first model call.
    const history = await handle.fetchHistory();
    const scheduled = history
      .events!.filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
    expect(scheduled.slice(0, 2)).toEqual(['listTools', 'callModel']);
  });
});

describe('an MCP server SIGKILLed after the tracker accepted a request, once per effectful call', () => {
  test('keyed: every create_issue and comment_on_issue dies mid-call; the retries carry the same keys, nothing is duplicated, nobody is asked', async () => {
    const repo = 'mcp-dies-keyed';
    const { handle, runId } = await run({ repo, mcpServers: ['dies-mid-call'] });
    const result = await handle.result();
    expect(system.trackers.keyed.store.counts(repo)).toEqual({ issues: 2, comments: 1 });
    const killed = ['call_create_1', 'call_create_2', 'call_comment_1'];
    expect(faultedKeys()).toEqual(expect.arrayContaining(killed.map((c) => key(runId, c))));
    expect(result.rungs).toEqual({
      call_create_1: 'repeat',
      call_create_2: 'repeat',
      call_comment_1: 'repeat',
      call_search_1: 'clean',
    });
    expect(result.questionsAsked).toBe(0);
    expect(await modelCalls(system, runId)).toBe(3);
  });

  test('keyless with lookup: each write dies mid-call; the lookup tool finds its trace, nothing is duplicated, nobody is asked', async () => {
    const repo = 'mcp-dies-keyless';
    const { handle, runId } = await run({ repo, keyless: true, lookup: true, mcpServers: ['dies-mid-call-keyless'] });
    const result = await handle.result();
    expect(system.trackers.keyless.store.counts(repo)).toEqual({ issues: 2, comments: 1 });
    expect(faultedKeys()).toEqual(
      expect.arrayContaining(['call_create_1', 'call_create_2', 'call_comment_1'].map((c) => key(runId, c))),
    );
    expect(result.rungs).toEqual({
      call_create_1: 'lookup',
      call_create_2: 'lookup',
      call_comment_1: 'lookup',
      call_search_1: 'clean',
    });
    expect(result.questionsAsked).toBe(0);
  });
});

describe('a third-party-style MCP server plugged in by JSON configuration', () => {
  test('its unannotated tools serve a whole run', async () => {
    const { handle } = await run({ repo: 'unused', mcpServers: ['plain'] });
    const result = await handle.result();
    expect(system.trackers.keyed.store.counts('plain-clean')).toEqual({ issues: 2, comments: 1 });
    expect(result.questionsAsked).toBe(0);
  });

  test('without annotations even its search counts as effectful and unkeyed: a worker killed in the call makes the run ask a person', async () => {
    const taskQueue = 'mcp-plain-killed';
    const { handle } = await startRun(system.env.client, taskQueue, {
      repo: 'unused',
      mcpServers: ['plain-killed'],
      timeouts: TIMEOUTS,
    });
    const env = { MCP_CONFIG: configFile };
    const first = startWorkerChild(
      system,
      taskQueue,
      { targets: { [handle.workflowId]: { name: 'tool.started', detail: 'search_issues call_search_1' } } },
      env,
    );
    children.push(first);
    await first.waitForEvent((e) => e.type === 'parked');
    await first.kill('SIGKILL');
    children.push(startWorkerChild(system, taskQueue, undefined, env));
    const question = await eventually(async () => (await handle.query(pendingQuery)).questions[0], 60_000);
    expect(question).toMatchObject({ callId: 'call_search_1', questionId: 'call_search_1#1', tool: 'search_issues' });
    await handle.signal(resolveSignal, { questionId: 'call_search_1#1', happened: false, by: 'erin' });
    const result = await handle.result();
    expect(result.rungs.call_search_1).toBe('person');
    expect(result.questionsAsked).toBe(1);
    expect(system.trackers.keyed.store.counts('plain-killed')).toEqual({ issues: 2, comments: 1 });
  });

  test('its effectful tool that acted and then answered with an error is in doubt, not "nothing happened": a person settles it, no duplicate', async () => {
    const repo = 'plain-fails-after';
    const { handle } = await run({ repo: 'unused', mcpServers: ['plain-fails-after'] });
    const question = await eventually(async () => (await handle.query(pendingQuery)).questions[0], 60_000);
    expect(question).toMatchObject({
      questionId: 'call_create_1#1',
      tool: 'create_issue',
      reason: expect.stringMatching(/upstream timed out/),
    });
    // The person finds the issue the call made, and gives its record as the call's result.
    const [made] = system.trackers.keyed.store.contents(repo);
    const { comments: _c, ...issue } = made;
    await handle.signal(resolveSignal, {
      questionId: 'call_create_1#1',
      happened: true,
      result: JSON.stringify(issue),
      by: 'grace',
    });
    const result = await handle.result();
    expect(result.rungs.call_create_1).toBe('person');
    expect(system.trackers.keyed.store.counts(repo)).toEqual({ issues: 2, comments: 1 });
  });
});

describe('MCP servers that fail', () => {
  test('a server that is down when the run starts: the run fails at once, naming the server', async () => {
    const { handle } = await run({ repo: 'mcp-down', mcpServers: ['down'] });
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(((err as WorkflowFailedError).cause as ApplicationFailure).message).toMatch(
      /cannot list the tools of MCP servers down: .*MCP server down is unreachable/,
    );
  });

  test('a server not in the worker configuration: the run fails, listing the configured ones', async () => {
    const { handle } = await run({ repo: 'mcp-unknown', mcpServers: ['nope'] });
    const err = (await handle.result().catch((e: unknown) => e)) as WorkflowFailedError;
    expect((err.cause as ApplicationFailure).message).toMatch(
      /no MCP server named nope .*configured: tracker, tracker-http/,
    );
  });

  test('invalid arguments and a tool error come back as non-retryable tool failures with the reason', async () => {
    const call = (args: Record<string, unknown>, tool = 'create_issue') =>
      toolbox
        .callTool('tracker', tool, args, { key: `k-${Math.random()}`, timeoutMs: 10_000 })
        .catch((e: unknown) => e);
    const invalid = (await call({ title: 5 })) as ApplicationFailure;
    expect(invalid).toBeInstanceOf(ApplicationFailure);
    expect(invalid.nonRetryable).toBe(true);
    expect(invalid.message).toMatch(/create_issue failed: .*title/);
    const missing = (await call(
      { number: 999_999, body: 'hello', repo: 'mcp-errors' },
      'comment_on_issue',
    )) as ApplicationFailure;
    expect(missing.nonRetryable).toBe(true);
    expect(missing.message).toMatch(/tracker refused POST .* with 404/);
  });

  test('a server that dies mid-call and stays down: the call in doubt goes to a person, later calls get a clear tool error, the run finishes', async () => {
    const repo = 'mcp-stays-down';
    const { handle } = await run({
      repo,
      keyless: true,
      lookup: false,
      mcpServers: ['dies-for-good'],
      trackerUrl: system.trackers.keyless.url,
      // Each later call is sent again for 2 s (the default is 3 minutes), then the model hears it is down.
      receiverDownMs: 2_000,
    });
    const question = await eventually(async () => (await handle.query(pendingQuery)).questions[0], 60_000);
    expect(question).toMatchObject({ callId: 'call_create_1', questionId: 'call_create_1#1', tool: 'create_issue' });
    expect(system.trackers.keyless.store.counts(repo).issues).toBe(1);
    await handle.signal(resolveSignal, { questionId: 'call_create_1#1', happened: true, by: 'frank' });
    const result = await handle.result();
    const create2 = result.calls.find((c) => c.callId === 'call_create_2')!;
    expect(create2.status).toBe('failed');
    expect(create2.result).toMatch(/MCP server dies-for-good is unreachable.*still unreachable after [23] s of tries/);
    expect(result.calls.find((c) => c.callId === 'call_search_1')!.result).toMatch(/unreachable/);
    expect(result.questionsAsked).toBe(1);
    expect(system.trackers.keyless.store.counts(repo)).toEqual({ issues: 1, comments: 0 });
  });
});

test('an MCP server that restarts for three seconds while the run writes: each call is sent again when it is back, nothing lost', async () => {
  const repo = 'mcp-restarts';
  const { handle } = await run({ repo, mcpServers: ['restarts'], approve: ['create_issue'] });
  // The run waits for approval of its first write: the server goes down then, and the approvals come.
  await eventually(async () => (await handle.query(pendingQuery)).approvals[0]);
  await restarting.child!.kill('SIGKILL');
  await handle.signal(approveSignal, { callId: 'call_create_1', approved: true, by: 'grace' });
  await new Promise((r) => setTimeout(r, 3_000));
  await restarting.start();
  // The second write waits for its own approval (one sent before it waits would need its digest).
  const second = await eventually(async () =>
    (await handle.query(pendingQuery)).approvals.find((a) => a.callId === 'call_create_2'),
  );
  await handle.signal(approveSignal, { callId: 'call_create_2', approved: true, by: 'grace', digest: second.digest });
  const result = await handle.result();
  expect(system.trackers.keyed.store.counts(repo)).toEqual({ issues: 2, comments: 1 });
  expect(result.answer).toMatch(/^Triage done\. Filed #1 and #2, commented on #1/);
  expect(result.questionsAsked).toBe(0);
}, 60_000);
