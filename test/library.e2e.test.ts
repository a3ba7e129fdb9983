// The package's entry points, used as a user would: an agent of one's own (prompt, TypeScript tools, a
// model behind `ModelProvider`) on a real dev server, started and approved through the client
// functions; and a workflow that is not an agent, with keys and the ladder from `keyedActivities`.
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { z } from 'zod/v4';
import { devServerExecutable } from '../common/temporal-cli';
import { answerQuestion, approveCall, denyCall, startAgentRun, waitingFor } from '../lib/client';
import { createAgentWorker, defineTool, type ModelProvider } from '../lib/worker';
import type { ModelRequest } from '../lib/workflow';
import { callDigest, callKey, type AgentInput, type AgentResult } from '../lib/workflow';
import { createKeyedActivities, newReceiver } from './fixtures/keyed/activities';
import { eventually } from './helpers/runs';

const AGENT_QUEUE = 'library-agent';
const KEYED_QUEUE = 'library-keyed';
const INSTRUCTIONS = 'You answer customers by mail. Look the customer up, then write.';

/** The user's mail service: what it sent, by key, and the runs whose first answer it loses. */
const mail = { sent: new Map<string, { to: string; subject: string }>(), loseFirst: new Set<string>() };
const notes: Array<{ key: string; text: string }> = [];
const loseNote = new Set<string>();

const lookupCustomer = defineTool({
  name: 'lookup_customer',
  description: 'Find a customer by id',
  parameters: z.object({ id: z.string() }),
  effect: 'read-only',
  run: async ({ id }) => ({ id, name: 'Ada', email: 'ada@example.com' }),
});

const sendEmail = defineTool({
  name: 'send_email',
  description: 'Send an email to a customer',
  parameters: z.object({ to: z.string().email(), subject: z.string(), body: z.string() }),
  effect: 'keyed',
  needsApproval: true,
  lookup: async ({ key }) => mail.sent.has(key),
  run: async (args, { key, runId }) => {
    if (!mail.sent.has(key)) mail.sent.set(key, { to: args.to, subject: args.subject });
    // The answer is lost once (a dropped connection): whether the mail went out is unknown to the run.
    if (mail.loseFirst.delete(runId)) throw new Error('connection reset by the mail service');
    return { sent: true, id: `mail-${mail.sent.size}` };
  },
});

const postNote = defineTool({
  name: 'post_note',
  description: 'Post a note on the customer',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  effect: 'unkeyed',
  lookup: async ({ key }) => {
    const found = notes.find((n) => n.key === key);
    return found ? { happened: true, output: { posted: found.text } } : false;
  },
  run: async (args, { key, runId }) => {
    notes.push({ key, text: String(args.text) });
    if (loseNote.delete(runId)) throw new Error('the note service timed out');
    return 'posted';
  },
});

/** Scripted replies by task: the user's own model, behind the loop's `ModelProvider`. */
const SCRIPTS: Record<string, Array<{ tool: string; args: unknown } | string>> = {
  mail: [
    { tool: 'lookup_customer', args: { id: 'c1' } },
    { tool: 'send_email', args: { to: 'ada@example.com', subject: 'Hi', body: 'Fixed.' } },
    'mailed Ada',
  ],
  note: [{ tool: 'post_note', args: { text: 'called back' } }, 'noted'],
  'bad args': [{ tool: 'lookup_customer', args: { id: 5 } }, 'gave up'],
};
const requests: ModelRequest[] = [];
const scriptedModel: ModelProvider = {
  async reply(request) {
    requests.push(request);
    const task = String(request.messages.find((m) => m.role === 'user')?.content);
    const turn = request.messages.filter((m) => m.role === 'assistant').length;
    const step = SCRIPTS[task][turn];
    if (typeof step === 'string') return { message: { role: 'assistant', content: step }, finishReason: 'stop' };
    const call = {
      id: `call-${turn + 1}`,
      type: 'function' as const,
      function: { name: step.tool, arguments: JSON.stringify(step.args) },
    };
    return { message: { role: 'assistant', content: null, tool_calls: [call] }, finishReason: 'tool_calls' };
  },
};

let env: TestWorkflowEnvironment;
const workers: Worker[] = [];
const running: Array<Promise<void>> = [];
const receiver = newReceiver();

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createLocal({
    server: { executable: devServerExecutable(), log: { format: 'pretty', level: 'error' } },
  });
  workers.push(
    await createAgentWorker({
      connection: env.nativeConnection,
      taskQueue: AGENT_QUEUE,
      tools: [lookupCustomer, sendEmail, postNote],
      modelProvider: scriptedModel,
    }),
    // The user's own workflow and its activities beside the agent loop, on one worker.
    await createAgentWorker({
      connection: env.nativeConnection,
      taskQueue: KEYED_QUEUE,
      workflowsPath: require.resolve('./fixtures/keyed/with-agent'),
      activities: createKeyedActivities(receiver),
      tools: [postNote],
      modelProvider: scriptedModel,
    }),
  );
  running.push(...workers.map((w) => w.run()));
}, 180_000);

afterAll(async () => {
  for (const w of workers) w.shutdown();
  await Promise.all(running);
  await env?.teardown();
});

const run = (task: string, runId = randomUUID()) =>
  startAgentRun(env.client, {
    runId,
    taskQueue: AGENT_QUEUE,
    task,
    instructions: INSTRUCTIONS,
    tools: ['lookup_customer', 'send_email', 'post_note'],
    timeouts: { toolMs: 3_000, retryInitialMs: 100 },
  });

describe('an agent of your own, from the package entry points', () => {
  test('your prompt, a read-only tool and a keyed one that needs approval: approved by signal, its lost answer settled by a repeat, one mail sent with the call key', async () => {
    const runId = randomUUID();
    mail.loseFirst.add(runId);
    const handle = await run('mail', runId);
    const waiting = await eventually(async () => {
      const w = await waitingFor(env.client, handle.workflowId);
      return w.approvals.length > 0 && w;
    });
    expect(waiting.approvals.map((a) => [a.callId, a.tool])).toEqual([['call-2', 'send_email']]);
    await approveCall(env.client, handle.workflowId, 'call-2', { by: 'test' });
    const result: AgentResult = await handle.result();

    expect(result.answer).toBe('mailed Ada');
    expect(result.rungs).toEqual({ 'call-1': 'clean', 'call-2': 'repeat' });
    const key = callKey(runId, 'call-2');
    expect([...mail.sent.entries()].filter(([k]) => k === key)).toEqual([
      [key, { to: 'ada@example.com', subject: 'Hi' }],
    ]);
    // The model was told who it is, and saw only the run's tools.
    const seen = requests.filter((r) => r.runId === runId);
    expect(seen[0].messages[0]).toEqual({ role: 'system', content: INSTRUCTIONS });
    expect(seen[0].tools.map((t) => t.function.name)).toEqual(['lookup_customer', 'send_email', 'post_note']);
    expect(seen[0].tools[1].function.parameters).toMatchObject({ required: ['to', 'subject', 'body'] });
    expect(seen[1].messages.at(-1)).toMatchObject({
      role: 'tool',
      content: JSON.stringify({ id: 'c1', name: 'Ada', email: 'ada@example.com' }),
    });
  }, 60_000);

  test('an unkeyed tool whose answer is lost is looked up (rung 2), not run again', async () => {
    const runId = randomUUID();
    loseNote.add(runId);
    const handle = await run('note', runId);
    const result = await handle.result();
    expect(result.rungs).toEqual({ 'call-1': 'lookup' });
    expect(notes.filter((n) => n.text === 'called back')).toHaveLength(1);
    expect(result.calls[0].result).toBe(JSON.stringify({ posted: 'called back' }));
  }, 60_000);

  test("arguments that do not fit the tool's schema are refused with the reason, and the tool does not run", async () => {
    const handle = await run('bad args');
    const result = await handle.result();
    expect(result.calls.map((c) => c.status)).toEqual(['failed']);
    expect(result.calls[0].result).toMatch(/do not fit the tool's schema/);
    expect(result.answer).toBe('gave up');
  }, 60_000);
});

describe('a run whose input is wrong is refused where it enters', () => {
  /**
   * Checks that `startAgentRun` refuses `input` with `reason`, and that a run another client starts
   * around that check fails at once with BadInput for the same reason: no model asked, no activity.
   */
  async function refusedWhereItEnters(input: AgentInput, reason: string) {
    await expect(startAgentRun(env.client, { ...input, taskQueue: AGENT_QUEUE })).rejects.toThrow(reason);
    const handle = await env.client.workflow.start('agentWorkflow', {
      taskQueue: AGENT_QUEUE,
      workflowId: `refused-${input.runId}`,
      args: [input],
    });
    const failure = await handle.result().then(
      () => null,
      (err: Error & { cause?: Error & { type?: string } }) => err.cause,
    );
    expect([failure?.type, failure?.message]).toEqual(['BadInput', `${reason}; nothing ran`]);
    expect(requests.filter((r) => r.runId === input.runId)).toEqual([]);
    const kinds = (await handle.fetchHistory()).events!.map((e) => e.eventType);
    expect(kinds.some((k) => String(k).includes('ACTIVITY'))).toBe(false);
  }

  test('a context that is not an object: startAgentRun refuses it, and a run started around it fails at once with BadInput, no model asked and no tool run', async () => {
    await refusedWhereItEnters(
      {
        runId: randomUUID(),
        task: 'mail',
        instructions: INSTRUCTIONS,
        tools: ['lookup_customer', 'send_email', 'post_note'],
        context: 'customer c1' as unknown as Record<string, unknown>,
      },
      `the run's context must be a JSON object, not "customer c1"`,
    );
  }, 60_000);

  test('a run that names no tools: startAgentRun refuses it, and a run started around it fails at once with BadInput, no model asked', async () => {
    await refusedWhereItEnters(
      { runId: randomUUID(), task: 'mail', instructions: INSTRUCTIONS },
      'the run names no tools: give it tools (registered on the worker with defineTool) or mcpServers (or both)',
    );
  }, 60_000);
});

describe('keys and the ladder for a workflow that is not an agent (keyedActivities)', () => {
  test('a keyed call whose answer is lost is repeated under its key and acts once; an unkeyed one is looked up', async () => {
    const workflowId = 'keyed-lookup';
    receiver.lose.add(workflowId);
    const out = await env.client.workflow.execute('payAndMail', {
      taskQueue: KEYED_QUEUE,
      workflowId,
      args: [{ owner: 'order-1', lookup: true }],
    });
    expect(out).toEqual(['charged 100', 'charged 200', 'mailed (found)']);
    expect([...receiver.charges.entries()]).toEqual([
      [callKey('order-1', 'charge#1'), 100],
      [callKey('order-1', 'charge#2'), 200],
    ]);
    expect(receiver.mails).toEqual(['hello']);
  }, 60_000);

  test("an AI SDK agent's tools (toolActivities): keyed by the model's tool-call id, a repeated id counted apart, the tool-call options not sent", async () => {
    const workflowId = 'tool-calls';
    receiver.lose.add(workflowId);
    const out = await env.client.workflow.execute('toolCalls', {
      taskQueue: KEYED_QUEUE,
      workflowId,
      args: [{ owner: 'agent-run-1' }],
    });
    expect(out).toEqual([
      'charged 100',
      'charged 200',
      expect.stringMatching(/toolActivities: charge needs the model's tool-call id/),
    ]);
    // The first answer was lost and the call repeated under its key: one charge per tool call.
    expect(receiver.charges.get(callKey('agent-run-1', 'call_1'))).toBe(100);
    expect(receiver.charges.get(callKey('agent-run-1', 'call_1~2'))).toBe(200);
    // The activity got the input alone, not the conversation.
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const inputs = (history.events ?? [])
      .map((e) => e.activityTaskScheduledEventAttributes?.input?.payloads ?? [])
      .flat()
      .map((p) => Buffer.from(p.data ?? new Uint8Array()).toString());
    expect(inputs).toEqual(['100', '200']);
  }, 60_000);

  test('a tool that needs approval waits for a person by signal, bound to its digest; a denial reaches the caller', async () => {
    const workflowId = 'tool-approvals';
    const handle = await env.client.workflow.start('approvedToolCalls', {
      taskQueue: KEYED_QUEUE,
      workflowId,
      args: [{ owner: 'agent-run-2' }],
    });
    const first = await eventually(async () => (await waitingFor(env.client, workflowId)).approvals[0]);
    expect(first).toEqual({ callId: 'call_a', tool: 'charge', args: [300], digest: callDigest('charge', [300]) });
    // Nothing ran before the approval.
    expect(receiver.charges.has(callKey('agent-run-2', 'call_a'))).toBe(false);
    // A decision naming another digest approves nothing: the client refuses it before it is sent.
    await expect(
      approveCall(env.client, workflowId, 'call_a', { by: 'test', digest: callDigest('charge', [999]) }),
    ).rejects.toThrow(/its arguments are not those you were shown/);
    await approveCall(env.client, workflowId, 'call_a', { by: 'test', digest: first.digest });
    const second = await eventually(
      async () => (await waitingFor(env.client, workflowId)).approvals.find((a) => a.callId === 'call_b') ?? null,
    );
    await denyCall(env.client, workflowId, second.callId, { by: 'test', reason: 'too much' });
    expect(await handle.result()).toEqual(['charged 300', 'charge (call_b) was denied by test: too much']);
    expect(receiver.charges.get(callKey('agent-run-2', 'call_a'))).toBe(300);
    expect(receiver.charges.has(callKey('agent-run-2', 'call_b'))).toBe(false);
  }, 60_000);

  test('with no lookup, the unknown mail is put to a person, whose answer arrives by signal', async () => {
    const workflowId = 'keyed-person';
    receiver.lose.add(workflowId);
    const handle = await env.client.workflow.start('payAndMail', {
      taskQueue: KEYED_QUEUE,
      workflowId,
      args: [{ owner: 'order-2', lookup: false }],
    });
    const question = await eventually(async () => (await waitingFor(env.client, workflowId)).questions[0]);
    expect(question).toMatchObject({ callId: 'mail#1', tool: 'mail', questionId: 'mail#1#1' });
    expect(question.reason).toContain(`key ${callKey('order-2', 'mail#1')}`);
    await answerQuestion(env.client, workflowId, 'mail#1', { happened: true, result: '"sent, I checked"', by: 'test' });
    expect(await handle.result()).toEqual(['charged 100', 'charged 200', 'sent, I checked']);
    expect(receiver.mails).toEqual(['hello', 'hello']); // this run's one mail, and the first test's
  }, 60_000);
});

describe('one worker for the agent loop and workflows of your own', () => {
  test('createAgentWorker serves your workflows module and activities beside the loop: an agent run and a keyed workflow on one task queue', async () => {
    const agent = await startAgentRun(env.client, {
      runId: randomUUID(),
      taskQueue: KEYED_QUEUE,
      task: 'note',
      tools: ['post_note'],
      timeouts: { toolMs: 3_000, retryInitialMs: 100 },
    });
    expect(((await agent.result()) as AgentResult).answer).toBe('noted');
    const out = await env.client.workflow.execute('payAndMail', {
      taskQueue: KEYED_QUEUE,
      workflowId: 'keyed-beside-agent',
      args: [{ owner: 'order-0', lookup: true }],
    });
    expect(out).toEqual(['charged 100', 'charged 200', 'mailed hello']);
    expect(receiver.charges.get(callKey('order-0', 'charge#1'))).toBe(100);
  }, 60_000);

  test("an activity of yours named as one of the loop's is refused, before any worker is built", async () => {
    await expect(
      createAgentWorker({
        connection: env.nativeConnection,
        taskQueue: 'never-built',
        modelProvider: scriptedModel,
        activities: { runTool: async () => 'mine' },
      }),
    ).rejects.toThrow("activities runTool: the agent loop's own activities have these names; give yours others");
  });
});
