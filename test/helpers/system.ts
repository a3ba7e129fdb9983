import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { devServerExecutable } from '../../common/temporal-cli';
import { buildModelServer } from '../../model/app';
import { buildTracker } from '../../tracker/app';
import { Store } from '../../tracker/store';
import { createAgentWorker, WORKFLOW_INTERCEPTORS, WORKFLOWS_PATH } from '../../workers/create-worker';
import { LINE_PREFIX, parseEventLine, type CrashEvent, type CrashPlan } from '../../sweep/crash-control';
import { startChild, type Child } from './processes';

/** A tracker served on a random loopback port, with its store for ground-truth counts. */
export interface RunningTracker {
  url: string;
  store: Store;
  app: FastifyInstance;
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** Everything a run needs, all real: a Temporal dev server, a keyed and a keyless tracker on SQLite, the model server. */
export interface System {
  env: TestWorkflowEnvironment;
  keyed: RunningTracker;
  keyless: RunningTracker;
  modelUrl: string;
  dir: string;
  close(): Promise<void>;
}

export async function startSystem(): Promise<System> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-test-'));
  const env = await TestWorkflowEnvironment.createLocal({ server: { executable: devServerExecutable() } });
  const trackers: RunningTracker[] = [];
  for (const keyless of [false, true]) {
    const store = new Store(path.join(dir, `tracker-${keyless ? 'keyless' : 'keyed'}.db`), 'normal');
    const app = buildTracker({ store, keyless });
    trackers.push({ url: await listen(app), store, app });
  }
  const model = buildModelServer();
  const modelUrl = await listen(model);
  return {
    env,
    keyed: trackers[0],
    keyless: trackers[1],
    modelUrl,
    dir,
    async close() {
      await model.close();
      for (const t of trackers) {
        await t.app.close();
        t.store.close();
      }
      await env.teardown();
    },
  };
}

/** How many model calls the model server served to a run. */
export async function modelCalls(system: System, runId: string): Promise<number> {
  const res = await fetch(`${system.modelUrl}/calls?run=${encodeURIComponent(runId)}`);
  return ((await res.json()) as { calls: number }).calls;
}

/** An in-process worker on `taskQueue`, for tests that do not kill it. */
export async function inProcessWorker(system: System, taskQueue: string): Promise<Worker> {
  return createAgentWorker({
    connection: system.env.nativeConnection,
    taskQueue,
    trackerUrl: system.keyed.url,
    openaiBaseUrl: `${system.modelUrl}/v1`,
    openaiApiKey: 'test',
    model: 'triage-script',
  });
}

/** Bundles the workflow code once, so each worker child process starts in a second, not five. */
export async function bundleToFile(dir: string): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: WORKFLOW_INTERCEPTORS });
  const file = path.join(dir, 'workflow-bundle.js');
  writeFileSync(file, code);
  return file;
}

/** A worker child process under the crash harness, with the events it reported. */
export interface WorkerChild extends Child {
  events(): CrashEvent[];
  waitForEvent(predicate: (e: CrashEvent) => boolean, timeoutMs?: number): Promise<CrashEvent>;
}

/** Starts `sweep/worker-process.ts` as a child process; `plan` parks the named workflows. */
export function startWorkerChild(system: System, taskQueue: string, bundle: string, plan?: CrashPlan): WorkerChild {
  const env: NodeJS.ProcessEnv = {
    TEMPORAL_ADDRESS: system.env.address,
    TASK_QUEUE: taskQueue,
    TRACKER_URL: system.keyed.url,
    OPENAI_BASE_URL: `${system.modelUrl}/v1`,
    WORKFLOW_BUNDLE: bundle,
  };
  if (plan) {
    const file = path.join(system.dir, `plan-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(plan));
    env.CRASH_PLAN = file;
  }
  const child = startChild('sweep/worker-process.ts', [], env);
  const events = () =>
    child
      .output()
      .split('\n')
      .filter((l) => l.startsWith(LINE_PREFIX))
      .map((l) => parseEventLine(l)!);
  return {
    ...child,
    events,
    async waitForEvent(predicate, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = events().find(predicate);
        if (hit) return hit;
        if (child.proc.exitCode !== null || child.proc.signalCode !== null) {
          throw new Error(`worker exited before the awaited event:\n${child.output()}`);
        }
        if (Date.now() > deadline) throw new Error(`worker did not report the awaited event in time:\n${child.output()}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

/**
 * Registers `beforeAll`/`afterAll` hooks that start a system with an in-process worker on `taskQueue`
 * and stop both; returns a getter for the system.
 */
export function useSystemWithWorker(taskQueue: string): () => System {
  let system: System;
  let worker: Worker;
  let running: Promise<void>;
  beforeAll(async () => {
    system = await startSystem();
    worker = await inProcessWorker(system, taskQueue);
    running = worker.run();
  }, 120_000);
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await system?.close();
  });
  return () => system;
}
