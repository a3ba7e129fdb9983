// A whole system for end-to-end tests: the sweep's world, and agent workers in process or as child processes.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Worker } from '@temporalio/worker';
import type { McpToolbox } from '../../activities/mcp-toolbox';
import { LINE_PREFIX, parseEventLine, type CrashEvent, type CrashPlan } from '../../sweep/worker/line-protocol';
import { startWorld, type World } from '../../agent-sweep/world';
import { triageTools } from '../../examples/triage/tools';
import { createAgentWorker } from '../../workers/create-worker';
import { startChild, type Child } from './processes';

/**
 * Everything a run needs, all real: a Temporal dev server, a keyed and a keyless tracker on SQLite,
 * the model server and a pre-built workflow bundle. The same world the crash sweep uses.
 */
export type System = World;

/** Starts a {@link System}. */
export const startSystem = startWorld;

/** How many model calls the model server served to a run. */
export function modelCalls(system: System, runId: string): Promise<number> {
  return system.modelCalls(runId);
}

/** An in-process worker on `taskQueue`, for tests that do not kill it. */
export async function inProcessWorker(system: System, taskQueue: string, mcp?: McpToolbox): Promise<Worker> {
  return createAgentWorker({
    mcp,
    connection: system.env.nativeConnection,
    taskQueue,
    openaiBaseUrl: `${system.modelUrl}/v1`,
    openaiApiKey: 'test',
    model: 'triage-script',
    workflowBundle: { code: readFileSync(system.workflowBundle, 'utf8') },
    // The triage example's tools, which the tests' runs name (test/helpers/runs.ts).
    tools: triageTools({ trackerUrl: system.trackers.keyed.url, otherTrackers: 'any' }),
  });
}

/** A worker child process under the crash harness, with the events it reported. */
export interface WorkerChild extends Child {
  events(): CrashEvent[];
  waitForEvent(predicate: (e: CrashEvent) => boolean, timeoutMs?: number): Promise<CrashEvent>;
}

/** Starts `agent-sweep/worker-main.ts` as a child process; `plan` parks the named workflows. */
export function startWorkerChild(
  system: System,
  taskQueue: string,
  plan?: CrashPlan,
  extraEnv: NodeJS.ProcessEnv = {},
): WorkerChild {
  const env: NodeJS.ProcessEnv = {
    ...extraEnv,
    TEMPORAL_ADDRESS: system.env.address,
    TASK_QUEUE: taskQueue,
    TRACKER_URL: system.trackers.keyed.url,
    OPENAI_BASE_URL: `${system.modelUrl}/v1`,
    WORKFLOW_BUNDLE: system.workflowBundle,
  };
  if (plan) {
    const file = path.join(system.dir, `plan-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(plan));
    env.CRASH_PLAN = file;
  }
  const child = startChild('agent-sweep/worker-main.ts', [], env);
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
        if (Date.now() > deadline)
          throw new Error(`worker did not report the awaited event in time:\n${child.output()}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

/**
 * Registers `beforeAll`/`afterAll` hooks that start a system with an in-process worker on `taskQueue`
 * and stop both; returns a getter for the system. `mcp`, if given, builds the worker's MCP servers
 * once the system is up (the toolbox is closed with the worker).
 */
export function useSystemWithWorker(taskQueue: string, mcp?: (system: System) => Promise<McpToolbox>): () => System {
  let system: System;
  let toolbox: McpToolbox | undefined;
  let worker: Worker;
  let running: Promise<void>;
  beforeAll(async () => {
    system = await startSystem();
    toolbox = await mcp?.(system);
    worker = await inProcessWorker(system, taskQueue, toolbox);
    running = worker.run();
  }, 120_000);
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await toolbox?.close();
    await system?.close();
  });
  return () => system;
}
