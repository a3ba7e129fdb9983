// defineTool and the worker's tool registry: the schema the model sees, the arguments a tool gets,
// what the ladder learns of its effect, and clear errors for a bad definition.
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { z as z3 } from 'zod';
import { z } from 'zod/v4';
import { createActivities } from '../activities';
import { defineTool, ToolRegistry } from '../activities/define-tool';
import { openAiModel } from '../activities/model';
import { keyFromActivityId } from '../common/activity-key';
import { key } from '../common/key';
import { contextProblem } from '../workflows/run-input';
import type { ToolRequest, ToolResponse } from '../workflows/types';
import { testLog } from './helpers/worker-logs';

const signal = new AbortController().signal;
const ctx = {
  key: 'k',
  runId: 'r',
  callId: 'c',
  attempt: 1,
  signal,
  context: {},
  point: async () => {},
  keysKeptFor: () => {},
};

describe('defineTool', () => {
  test('a zod 4 schema becomes the JSON Schema the model sees, and checks the arguments before run', async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      name: 'send_email',
      description: 'Send an email',
      parameters: z.object({ to: z.string().email(), subject: z.string() }),
      effect: 'keyed',
      run: async (args, { key: k }) => {
        seen.push([args, k]);
        return { sent: true };
      },
    });
    expect(tool.spec).toMatchObject({
      name: 'send_email',
      parameters: { type: 'object', required: ['to', 'subject'] },
      readOnly: false,
      idempotent: false,
      sendsKey: true,
      lookup: false,
      needsApproval: false,
      registered: true,
    });
    expect(tool.spec.parameters).not.toHaveProperty('$schema');
    const registry = new ToolRegistry([tool]);
    expect(await registry.run('send_email', { to: 'a@example.com', subject: 's' }, ctx)).toBe('{"sent":true}');
    await expect(registry.run('send_email', { to: 'not a mail', subject: 's' }, ctx)).rejects.toMatchObject({
      name: 'ReceiverRefusedError',
      type: 'InvalidArguments',
    });
    expect(seen).toEqual([[{ to: 'a@example.com', subject: 's' }, 'k']]);
  });

  test('a zod 3 schema and a plain JSON Schema work too; the effect decides what a repeat is', () => {
    const v3 = defineTool({
      name: 'lookup',
      description: 'd',
      parameters: z3.object({ id: z3.string() }),
      effect: 'read-only',
      run: async () => 'x',
    });
    expect(v3.spec).toMatchObject({ parameters: { type: 'object', required: ['id'] }, readOnly: true });
    const plain = defineTool({
      name: 'note',
      description: 'd',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
      effect: 'idempotent',
      lookup: async () => true,
      needsApproval: true,
      run: async () => 'x',
    });
    expect(plain.spec).toMatchObject({ idempotent: true, lookup: true, needsApproval: true, sendsKey: false });
  });

  test('a bad definition fails at once, with the reason', () => {
    const base = { description: 'd', parameters: z.object({}), run: async () => 'x' };
    expect(() => defineTool({ ...base, name: 'has space', effect: 'keyed' })).toThrow(/tool name "has space"/);
    expect(() => defineTool({ ...base, name: 't', effect: 'sometimes' as never })).toThrow(/effect must be one of/);
    expect(() => defineTool({ ...base, name: 't', effect: 'keyed', parameters: z.string() as never })).toThrow(
      /must describe an object/,
    );
    expect(
      () =>
        new ToolRegistry([
          defineTool({ ...base, name: 't', effect: 'keyed' }),
          defineTool({ ...base, name: 't', effect: 'keyed' }),
        ]),
    ).toThrow(/two tools registered as t/);
    expect(() => new ToolRegistry().get('nope')).toThrow(
      /no tool named nope is registered on this worker \(registered: none\)/,
    );
  });

  test("a lookup's answer: true, false, { happened, output } or { happened: false, commitDeadlineMs }; anything else is an error", async () => {
    const answers: unknown[] = [
      true,
      { happened: false },
      { happened: true, output: { id: 7 } },
      { happened: false, commitDeadlineMs: 7_000 },
      'yes',
      { happened: false, commitDeadlineMs: -1 },
    ];
    const tool = defineTool({
      name: 't',
      description: 'd',
      parameters: z.object({}),
      effect: 'unkeyed',
      lookup: async () => answers.shift() as never,
      run: async () => 'x',
    });
    const registry = new ToolRegistry([tool]);
    const q = { key: 'k', callId: 'c', runId: 'r', byKey: true, context: {}, signal };
    expect(await registry.lookup('t', {}, q)).toEqual({ happened: true });
    expect(await registry.lookup('t', {}, q)).toEqual({ happened: false });
    expect(await registry.lookup('t', {}, q)).toEqual({ happened: true, output: '{"id":7}' });
    expect(await registry.lookup('t', {}, q)).toEqual({ happened: false, commitDeadlineMs: 7_000 });
    await expect(registry.lookup('t', {}, q)).rejects.toThrow(/answered neither true nor false/);
    await expect(registry.lookup('t', {}, q)).rejects.toThrow(/commitDeadlineMs that is not a positive number/);
  });
});

describe('the key of a call made in workflow code', () => {
  test('an activity id carries its key after the separator; any other id carries none', () => {
    const k = key('order-1', 'charge#1');
    expect(keyFromActivityId(`charge#1.1 key ${k}`)).toBe(k);
    expect(keyFromActivityId('1')).toBeNull();
    expect(keyFromActivityId('charge#1.1 key not-a-key')).toBeNull();
  });
});

describe("the run's context, checked where it enters (the client and the workflow share the check)", () => {
  test('an object or nothing passes; anything else is refused with what it was', () => {
    expect(contextProblem(undefined)).toBeNull();
    expect(contextProblem({ repo: 'r', customer: { id: 7 } })).toBeNull();
    expect(contextProblem('repo')).toBe(`the run's context must be a JSON object, not "repo"`);
    expect(contextProblem(null)).toBe(`the run's context must be a JSON object, not null`);
    expect(contextProblem(['r'])).toBe(`the run's context must be a JSON object, not an array`);
  });
});

describe("a registered tool's call, as the runTool activity makes it", () => {
  test('a bad keysKeptFor after the effect is logged and left out: the call that happened succeeds', async () => {
    let sent = 0;
    const definition = {
      name: 'send_email',
      description: 'Send an email',
      parameters: { type: 'object', properties: {} },
      effect: 'keyed',
    } as const;
    const tool = defineTool({
      ...definition,
      run: async (_args, c) => {
        sent += 1; // the receiver acted
        c.keysKeptFor(Number.NaN);
        c.keysKeptFor(-5);
        return 'sent';
      },
    });
    const activities = createActivities({
      model: openAiModel({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'unused', model: 'unused' }),
      tools: new ToolRegistry([tool]),
    });
    const warnings: string[] = [];
    const logger = new DefaultLogger('WARN', (entry) => void warnings.push(entry.message));
    const env = new MockActivityEnvironment({}, { logger });
    const req: ToolRequest = {
      runId: 'r',
      callId: 'c1',
      tool: 'send_email',
      args: {},
      registered: true,
      sendKey: true,
    };
    const res = (await env.run(activities.runTool, req)) as ToolResponse;
    expect([res.output, res.keyRetentionMs, sent]).toEqual(['sent', undefined, 1]);
    expect(warnings.filter((w) => w.includes('keysKeptFor'))).toEqual([
      expect.stringContaining('send_email c1: keysKeptFor(NaN) ignored'),
      expect.stringContaining('send_email c1: keysKeptFor(-5) ignored'),
    ]);
    // A good value still reaches the run.
    const kept = defineTool({ ...definition, name: 'kept', run: async (_a, c) => (c.keysKeptFor(60_000), 'ok') });
    const withKept = createActivities({
      model: openAiModel({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'unused', model: 'unused' }),
      tools: new ToolRegistry([kept]),
    });
    const ok = (await env.run(withKept.runTool, { ...req, tool: 'kept' })) as ToolResponse;
    expect(ok.keyRetentionMs).toBe(60_000);
  });
});

describe('a call allowed one try, started again by the server', () => {
  // An operator paused the call mid-attempt and unpaused it: the server starts attempt 2 whatever
  // the retry policy says, and the attempt before may have acted.
  const sendEmail = (sent: { n: number }) =>
    defineTool({
      name: 'send_email',
      description: 'Send an email',
      parameters: { type: 'object', properties: {} },
      effect: 'keyed',
      run: async () => {
        sent.n += 1;
        return 'sent';
      },
    });
  const req: ToolRequest = { runId: 'r', callId: 'c1', tool: 'send_email', args: {}, registered: true, sendKey: true };
  const retryPolicy = (maximumAttempts: number) => ({
    initialInterval: 100,
    backoffCoefficient: 2,
    maximumAttempts,
    nonRetryableErrorTypes: [],
  });

  test('sends nothing, and reports an unknown outcome for the ladder to settle', async () => {
    const sent = { n: 0 };
    const activities = createActivities({
      model: openAiModel({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'unused', model: 'unused' }),
      tools: new ToolRegistry([sendEmail(sent)]),
    });
    const second = new MockActivityEnvironment({ attempt: 2, retryPolicy: retryPolicy(1) }, { logger: testLog });
    await expect(second.run(activities.runTool, req)).rejects.toMatchObject({
      type: 'EarlierAttemptUnknown',
      nonRetryable: true,
      message: expect.stringContaining('send_email c1 was allowed one try, and the server started attempt 2'),
    });
    expect(sent.n).toBe(0);
    // Its first attempt, and a later attempt of a call allowed retries, are sent.
    await new MockActivityEnvironment({ attempt: 1, retryPolicy: retryPolicy(1) }, { logger: testLog }).run(
      activities.runTool,
      req,
    );
    await new MockActivityEnvironment({ attempt: 2, retryPolicy: retryPolicy(10) }, { logger: testLog }).run(
      activities.runTool,
      req,
    );
    expect(sent.n).toBe(2);
  });
});
