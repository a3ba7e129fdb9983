// The payload store on S3, as production runs it: the SDK's S3 driver (@temporalio/external-storage-s3,
// with its AWS SDK client) against a real S3-compatible server (moto's, from .tools/s3), a real dev
// server, and a long run of large outputs that continues as new; a second worker process's client
// reads what the first stored.
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Client } from '@temporalio/client';
import { S3StorageDriver } from '@temporalio/external-storage-s3';
import { AwsSdkS3StorageDriverClient } from '@temporalio/external-storage-s3-aws-sdk';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { z } from 'zod/v4';
import { chainHistories, historySizes } from '../common/history-events';
import { devServerExecutable } from '../common/temporal-cli';
import { startAgentRun } from '../lib/client';
import { externalStorage } from '../lib/store';
import { createAgentWorker, defineTool, type ModelProvider } from '../lib/worker';
import type { ModelRequest } from '../lib/workflow';
import type { AgentResult } from '../lib/workflow';
import { startS3Server, type S3Server } from './helpers/s3-server';

const QUEUE = 's3-store';
const BUCKET = 'agent-payloads';
const page = (n: number, bytes: number) => `page ${n}:`.padEnd(bytes, 'klmnopqrst');

const fetchPage = defineTool({
  name: 'fetch_page',
  description: 'Fetch a page',
  parameters: z.object({ n: z.number() }),
  effect: 'read-only',
  run: async ({ n }) => page(n, 100_000),
});

/** Asks for 8 pages, then says how many bytes it read; what it was sent is kept. */
const seen: ModelRequest[] = [];
const model: ModelProvider = {
  async reply(request) {
    seen.push(request);
    const turn = request.messages.filter((m) => m.role === 'assistant').length + 1;
    if (turn > 8) {
      const read = request.messages.filter((m) => m.role === 'tool').reduce((n, m) => n + String(m.content).length, 0);
      return { message: { role: 'assistant', content: `read ${read} bytes` }, finishReason: 'stop' };
    }
    const call = {
      id: `call_${turn}`,
      type: 'function' as const,
      function: { name: 'fetch_page', arguments: `{"n":${turn}}` },
    };
    return { message: { role: 'assistant', content: null, tool_calls: [call] }, finishReason: 'tool_calls' };
  },
};

let s3: S3Server;
let s3Client: S3Client;
let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;

/** The S3 driver as a production worker and its clients make it. */
const s3Storage = () =>
  externalStorage(new S3StorageDriver({ client: new AwsSdkS3StorageDriverClient(s3Client), bucket: BUCKET }));

beforeAll(async () => {
  s3 = await startS3Server();
  s3Client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  await s3Client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  env = await TestWorkflowEnvironment.createLocal({
    server: { executable: devServerExecutable(), log: { format: 'pretty', level: 'error' } },
  });
  worker = await createAgentWorker({
    connection: env.nativeConnection,
    taskQueue: QUEUE,
    tools: [fetchPage],
    modelProvider: model,
    dataConverter: { externalStorage: s3Storage() },
    // A store on S3 seals the run's references under the key secret: the driver keeps none of its own.
    keySecret: 's3-test-key-secret',
  });
  running = worker.run();
}, 180_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
  s3Client?.destroy();
  await s3?.close();
});

test("with S3 as the payload store, 8 pages of 100 KB over three continue-as-new runs: done, each page an object in the bucket under the workflow's id, history small, and another client reads the result through S3", async () => {
  const client = new Client({ connection: env.client.connection, dataConverter: { externalStorage: s3Storage() } });
  const handle = await startAgentRun(client, {
    taskQueue: QUEUE,
    task: 'read eight pages',
    tools: ['fetch_page'],
    maxTurns: 9,
    turnsPerRun: 3,
  });
  const result: AgentResult = await handle.result();
  expect(result.answer).toBe(`read ${8 * 100_000} bytes`);
  // The model was shown every page whole.
  expect(
    seen
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .map((m) => m.content),
  ).toEqual(Array.from({ length: 8 }, (_, i) => page(i + 1, 100_000)));

  const listed = await s3Client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
  const keys = (listed.Contents ?? []).map((o) => o.Key!);
  const ofRun = keys.filter((k) => k.includes(`/wi/${encodeURIComponent(handle.workflowId)}/`));
  // Eight pages and the conversation's records, content-addressed under the workflow's id.
  expect(ofRun.length).toBeGreaterThanOrEqual(8);
  expect(ofRun.every((k) => /\/d\/sha256\/[0-9a-f]{64}$/.test(k))).toBe(true);
  const stored = (listed.Contents ?? []).reduce((n, o) => n + (o.Size ?? 0), 0);
  expect(stored).toBeGreaterThanOrEqual(8 * 100_000);

  const histories = await chainHistories(
    env.client,
    handle.workflowId,
    (handle as typeof handle & { firstExecutionRunId: string }).firstExecutionRunId,
  );
  const executions = histories.length;
  const historyBytes = histories.reduce((n, events) => n + historySizes(events).bytes, 0);
  expect(executions).toBe(3);
  // The pages are in the bucket, not in history: some 12 KB a turn, three runs' starts included.
  expect(historyBytes).toBeLessThan((8 * 100_000) / 5);

  // Another client, with a driver of its own, reads what the worker stored.
  const other = new Client({ connection: env.client.connection, dataConverter: { externalStorage: s3Storage() } });
  const again: AgentResult = await other.workflow.getHandle(handle.workflowId).result();
  expect(again.calls.map((c) => c.status)).toEqual(Array(8).fill('done'));
}, 120_000);
