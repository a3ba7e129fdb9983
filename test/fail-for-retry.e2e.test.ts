// The engine fails a run for its retry policy (the `retry` fault, sweep/faults/retry.ts) with a signal the crash-sweep
// plugin answers, only in a run the engine marked: a worker that keeps the plugin outside a sweep gives
// no one a signal to fail its runs with.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { RetryPolicy } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { FAIL_FOR_RETRY_SIGNAL, FAILED_FOR_RETRY } from '../common/crash-points';
import { KillableServerHost } from '../sweep/hosts/killable-server-host';
import { clientMarkingRetries } from '../sweep/faults/retry';
import { crashSweepPlugin } from '../sweep/plugin';

const TASK_QUEUE = 'fail-for-retry';
const RETRY: RetryPolicy = { initialInterval: '100ms', maximumAttempts: 5 };

let server: KillableServerHost;
let connection: NativeConnection;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  server = await KillableServerHost.start(mkdtempSync(path.join(os.tmpdir(), 'fail-for-retry-')), TASK_QUEUE, []);
  connection = await NativeConnection.connect({ address: server.address });
  worker = await Worker.create({
    connection,
    taskQueue: TASK_QUEUE,
    workflowsPath: require.resolve('./fixtures/retry/workflows'),
    plugins: [crashSweepPlugin()],
  });
  running = worker.run();
}, 60_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await connection?.close();
  await server?.close();
});

/** Waits until the workflow id names a run other than `runId`, and returns it. */
async function nextRun(client: Client, workflowId: string, runId: string): Promise<string> {
  for (;;) {
    const now = (await client.workflow.getHandle(workflowId).describe()).runId;
    if (now !== runId) return now;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const currentRun = async (handle: WorkflowHandle) => (await handle.describe()).runId;

describe('failing a run for its retry policy', () => {
  test('a marked run fails retryably at the signal, and its retried runs are marked too', async () => {
    const client = clientMarkingRetries(server.client);
    const handle = await client.workflow.start('waitsToGo', {
      taskQueue: TASK_QUEUE,
      workflowId: 'marked',
      retry: RETRY,
    });
    const first = await currentRun(handle);
    await handle.signal(FAIL_FOR_RETRY_SIGNAL, 'a test');
    const second = await nextRun(client, 'marked', first);
    await client.workflow.getHandle('marked').signal(FAIL_FOR_RETRY_SIGNAL, 'a test, again');
    await nextRun(client, 'marked', second);
    await client.workflow.getHandle('marked').signal('go');
    expect(await handle.result()).toBe(3);

    const failed = (await client.workflow.getHandle('marked', first).fetchHistory()).events!.at(-1)!;
    const failure = failed.workflowExecutionFailedEventAttributes!.failure!;
    expect([failure.applicationFailureInfo?.type, failure.applicationFailureInfo?.nonRetryable ?? false]).toEqual([
      FAILED_FOR_RETRY,
      false,
    ]);
    expect(failure.message).toContain('a test');
  }, 60_000);

  test('an unmarked run, on the same worker, takes no notice of the signal', async () => {
    const handle = await server.client.workflow.start('waitsToGo', {
      taskQueue: TASK_QUEUE,
      workflowId: 'unmarked',
      retry: RETRY,
    });
    await handle.signal(FAIL_FOR_RETRY_SIGNAL, 'a test');
    await handle.signal('go');
    expect(await handle.result()).toBe(1);
    const events = (await handle.fetchHistory()).events!;
    expect(events.filter((e) => e.workflowExecutionSignaledEventAttributes).length).toBe(2);
  }, 60_000);
});
