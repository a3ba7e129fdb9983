// Replies that real providers send and the scripted triage model never does: call ids reused within a
// reply and across replies, arguments that are not JSON, and a reply cut off at its length limit.
// A real HTTP model server plays them, turn by turn, to a real worker on a real dev server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import type { Worker } from '@temporalio/worker';
import { createAgentWorker } from '../workers/create-worker';
import type { ChatMessage, ToolCall } from '../workflows/types';
import { startRun } from './helpers/runs';
import { triageTools } from '../examples/triage/tools';
import { startSystem, type System } from './helpers/system';

const TASK_QUEUE = 'model-replies';

const call = (id: string, name: string, args: string): ToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});
const create = (title: string) => JSON.stringify({ title, body: `${title}, seen in production` });

/** Each turn's reply (by the number of assistant messages so far) and why the model stopped. */
const TURNS: Array<{ message: ChatMessage; finish: string }> = [
  // Two creates under one id, as providers that number calls per reply do.
  {
    message: {
      role: 'assistant',
      content: null,
      tool_calls: [
        call('call_0', 'create_issue', create('Checkout 500')),
        call('call_0', 'create_issue', create('Coupon lost')),
      ],
    },
    finish: 'tool_calls',
  },
  // The same id again in the next reply, and arguments that are not JSON.
  {
    message: {
      role: 'assistant',
      content: null,
      tool_calls: [
        call('call_0', 'comment_on_issue', JSON.stringify({ number: 1, body: 'Root cause: coupon rounding' })),
        call('call_1', 'create_issue', '{"title": "Half a'),
      ],
    },
    finish: 'tool_calls',
  },
  // A reply cut off at the length limit: its arguments happen to parse, but may be incomplete.
  {
    message: { role: 'assistant', content: null, tool_calls: [call('call_2', 'create_issue', create('Cut off'))] },
    finish: 'length',
  },
  { message: { role: 'assistant', content: 'Done.' }, finish: 'stop' },
];

/** The conversations the model server received, one per request. */
const received: ChatMessage[][] = [];

function startModel(): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { messages } = JSON.parse(body) as { messages: ChatMessage[] };
      received.push(messages);
      const turn = TURNS[messages.filter((m) => m.role === 'assistant').length];
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: 'r',
          object: 'chat.completion',
          created: 0,
          model: 'replies',
          choices: [{ index: 0, message: turn.message, finish_reason: turn.finish }],
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let system: System;
let model: http.Server;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  system = await startSystem();
  model = await startModel();
  worker = await createAgentWorker({
    connection: system.env.nativeConnection,
    taskQueue: TASK_QUEUE,
    tools: triageTools({ trackerUrl: system.trackers.keyed.url, otherTrackers: 'any' }),
    openaiBaseUrl: `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`,
    openaiApiKey: 'test',
    model: 'replies',
    workflowBundle: { code: readFileSync(system.workflowBundle, 'utf8') },
  });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  model?.close();
  await system?.close();
});

test("reused call ids never act under another call's key, and bad or cut-off arguments never run", async () => {
  const repo = 'model-replies';
  const { handle } = await startRun(system.env.client, TASK_QUEUE, { repo });
  const result = await handle.result();

  // Both creates and the comment happened, each once; neither bad call ran.
  const issues = system.trackers.keyed.store.contents(repo);
  expect(issues.map((i) => i.title)).toEqual(['Checkout 500', 'Coupon lost']);
  expect(issues[0].comments.map((c) => c.body.split('\n')[0])).toEqual(['Root cause: coupon rounding']);

  // Each call had an identity of its own; the model heard exactly why the bad ones did not run.
  expect(result.calls.map((c) => [c.callId, c.status])).toEqual([
    ['call_0', 'done'],
    ['call_0@1.2', 'done'],
    ['call_0@2.1', 'done'],
    ['call_1', 'failed'],
    ['call_2', 'failed'],
  ]);
  const toolResults = received
    .at(-1)!
    .filter((m) => m.role === 'tool')
    .map((m) => m.content ?? '');
  expect(toolResults[3]).toMatch(/not valid JSON/);
  expect(toolResults[4]).toMatch(/cut off at the length limit/);
}, 60_000);
