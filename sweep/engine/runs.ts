// A batch's runs: each scenario while its batch runs, started on its task queue and watched to its end.
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { TerminatedFailure } from '@temporalio/common';
import type { Generation, SeenPoint } from './generation';
import type { RanScenario, Scenario, ScenarioResult } from './scenario';
import type { BatchPlan, SuiteRun, SweepSuite } from './suite';

/**
 * A scenario while its batch runs: its plan, and its result as the batch finds it; the batch returns
 * the result, and nothing writes it after that.
 */
export type Running = Scenario & { -readonly [K in keyof ScenarioResult]: ScenarioResult[K] } & {
  landed: SeenPoint[];
  operations?: string[];
  handle?: WorkflowHandle;
};

/** A run's result as the batch returns it: the plan and what the run did, without the live handle. */
export function resultOfRun({ handle, ...ran }: Running): RanScenario {
  void handle; // a live connection's handle ends with its batch
  return Object.freeze(ran);
}

/** How often a batch that waits says what for. */
const WAITING_SAID_EVERY_MS = 15_000;

/** A run's end as its workflow result reports it. */
export type RunResult = { ok: true; value: unknown } | { ok: false; error: Error };

/** Which runs of a batch have ended, and how. */
export interface RunWatch {
  ended: Set<string>;
  /** Second clean runs waiting for their first to end (`Scenario.after`). */
  notStarted: Set<string>;
  results: Map<string, Promise<RunResult>>;
}

/** Starts every run of a batch on its task queue, and watches each one's end from the start. */
export async function startRuns(
  batch: Running[],
  client: Client,
  suite: SweepSuite,
  runsOf: Map<string, SuiteRun>,
): Promise<RunWatch> {
  const watch: RunWatch = { ended: new Set(), notStarted: new Set(), results: new Map() };
  const start = async (s: Running) => {
    const run = runsOf.get(s.workflowId)!;
    s.taskQueue = run.taskQueue;
    s.client = client;
    const marking = s.row.faults?.find((f) => f.startClient);
    s.handle = await suite.start(marking?.startClient ? marking.startClient(client) : client, run);
    if (s.handle.workflowId !== s.workflowId)
      throw new Error(`the suite started ${s.handle.workflowId}, not the run's workflow id ${s.workflowId}`);
    // A run that ends while it should be parked is a kill that did not land: its end is watched from the start.
    const result = resultOf(client, s.handle).finally(() => watch.ended.add(s.workflowId));
    watch.results.set(s.workflowId, result);
    watch.notStarted.delete(s.workflowId);
    return { result };
  };
  // A second clean run starts once its first has ended, in the generation that finishes them both.
  const seconds = batch.filter((s) => s.after);
  for (const s of seconds) watch.notStarted.add(s.workflowId);
  const firsts = new Map<string, Promise<RunResult>>();
  await Promise.all(batch.filter((s) => !s.after).map(async (s) => firsts.set(s.workflowId, (await start(s)).result)));
  for (const s of seconds) {
    const first = s.after && firsts.get(s.after.workflowId);
    if (!first) throw new Error(`${s.id} follows a run that is not in its batch`);
    void first
      .then(() => start(s))
      .catch((err: Error) => {
        s.error ??= `it did not start: ${err.message}`;
        watch.notStarted.delete(s.workflowId);
        watch.ended.add(s.workflowId);
      });
  }
  return watch;
}

/** gRPC status codes of a server that is down or did not answer in time. */
const GRPC_UNAVAILABLE = 14;
const GRPC_DEADLINE_EXCEEDED = 4;

/**
 * A run's result; asked again while its server does not answer (the harness killed it, and it comes
 * back). A run the engine reset ends terminated while a new run of its workflow id goes on: its
 * result is the new run's.
 */
async function resultOf(client: Client, started: WorkflowHandle): Promise<RunResult> {
  let handle = started;
  // The run the handle names: a started handle's first run, or the run it was made for.
  const ids = started as { firstExecutionRunId?: string; runId?: string };
  let runId = ids.firstExecutionRunId ?? ids.runId;
  for (;;) {
    try {
      return { ok: true, value: await handle.result() };
    } catch (err) {
      const code = (err as { code?: number; cause?: { code?: number } }).cause?.code ?? (err as { code?: number }).code;
      if (code === GRPC_UNAVAILABLE || code === GRPC_DEADLINE_EXCEEDED) {
        await sleep(50);
        continue;
      }
      if (err instanceof WorkflowFailedError && err.cause instanceof TerminatedFailure) {
        // A reset terminates the run it came from and starts the new one at once.
        const latest = await client.workflow
          .getHandle(started.workflowId)
          .describe()
          .then((d) => d.runId)
          .catch(() => runId);
        if (latest !== runId) {
          runId = latest;
          handle = client.workflow.getHandle(started.workflowId, latest);
          continue;
        }
      }
      return { ok: false, error: err as Error };
    }
  }
}

/**
 * Waits while `pending` names runs, letting the suite act (`BatchPlan.poll`); returns the runs still
 * pending after `ms`. A generation that dies on its own is an error of the harness, not of a scenario.
 */
export async function waitForRuns(
  gen: Generation,
  plan: BatchPlan,
  runs: Pick<RunWatch, 'ended' | 'notStarted'>,
  pending: () => Running[],
  ms: number,
  say?: (waiting: Running[], seconds: number) => void,
): Promise<Running[]> {
  const started = Date.now();
  const deadline = started + ms;
  let saidAt = started;
  const state = {
    isParked: (workflowId: string) => gen.parked.has(workflowId),
    ended: runs.ended,
    notStarted: runs.notStarted,
  };
  for (;;) {
    await plan.poll?.(state);
    const waiting = pending();
    if (waiting.length === 0 || Date.now() > deadline) return waiting;
    if (say && Date.now() - saidAt >= WAITING_SAID_EVERY_MS) {
      saidAt = Date.now();
      say(waiting, Math.round((saidAt - started) / 1000));
    }
    if (!gen.alive) throw new Error(`a sweep worker died on its own:\n${gen.stderrTail()}`);
    await sleep(25);
  }
}

/** Sleeps `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
