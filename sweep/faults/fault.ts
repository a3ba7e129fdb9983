// What a fault is to the sweep: its name, where it strikes, what it does at a kill, and what it leaves to tolerate.
import type { Client } from '@temporalio/client';

/** Where a fault strikes. */
export type FaultTarget = 'worker' | 'temporal-server' | 'receiver' | 'run' | 'activity' | 'build';

/** What a fault lets a run do that a clean run of a row without it must not (the checks tolerate it). */
export interface Tolerance {
  /** A clean run may retry an activity (the fault fails a call, or kills a receiver mid-call). */
  retries?: boolean;
  /**
   * Activity types whose receiver is slower than their timeout: they may time out in a live worker,
   * and the audit and the lateness check accept it for them (for no other type).
   */
  slowActivities?: readonly string[];
  /**
   * The fault does damage with no kill at all (a slow receiver without key claims): a clean run may
   * leave duplicates, losses, orphans or questions, and every scenario counts them too.
   */
  damagedWithoutKills?: boolean;
}

/** A run at a kill, its worker dead: what a fault that acts on runs gets. */
export interface KilledRun {
  /** A client of the Temporal server the run lives on. */
  client: Client;
  workflowId: string;
  /** Why, for the server's records (a reset's or a terminate's reason). */
  reason: string;
}

/** A batch at one of its stages, as a fault that acts on the batch as a whole gets it. */
export interface BatchOfFault {
  /** A client of the Temporal server the batch's runs live on. */
  client: Client;
  /** The batch's own task queue (no other batch's runs are on it). */
  taskQueue: string;
  /** The round: 0 until the first kill, 1 after it, and so on. */
  round: number;
}

/**
 * A fault the sweep injects into a row's runs, as etcd's failpoints and Jepsen's nemeses are: the row
 * names it, the engine asks it what to do at each stage. Every row's worker is killed at each point
 * (unless a fault keeps it alive); a fault adds to that, or acts instead. Each hook is optional: a
 * fault has those of the stages it touches. A fault of a receiver is declared here and carried out
 * where the receiver lives: by the engine for a receiver a suite declares (`hosts/declared-receivers.ts`),
 * by the agent's suite for its own trackers and MCP servers, which reads it from the row.
 */
export interface Fault {
  /** Its name in a row and in the report: its kind, and its setting after a colon (`reset:first-task`). */
  readonly name: string;
  /** Its kind: the file it is declared in (`sweep/faults/<kind>.ts`). */
  readonly kind: string;
  readonly target: FaultTarget;
  /** What it does, in one line. */
  readonly summary: string;
  /** What it leaves the checks to tolerate. Default nothing. */
  readonly tolerates?: Tolerance;
  /**
   * The row is swept in the first pass only: its restarts are too long for the second pass's batches,
   * or nothing runs after the fault to kill again. Default `false`.
   */
  readonly firstPassOnly?: boolean;
  /**
   * The Temporal server dies at each kill: the row's runs live on a dev server of their own, on a
   * database file, which the engine SIGKILLs at the kill's point and starts again on the same file and
   * port. `worker-survives`: the worker is not killed, and its parked runs go on once the server is
   * back; `worker-dies`: the worker is killed too, while the server is down.
   */
  readonly serverDies?: 'worker-survives' | 'worker-dies';
  /** What the worker processes do for it: throw at a point, or see a run that the engine operated on. */
  readonly inWorker?: {
    /** The first time each call (each point detail) of a run reaches this point in a process, it throws. */
    throwAt?: string;
    /** The engine fails the run for its retry policy, or cancels it, at each kill: see `CrashPlan.operated`. */
    operated?: 'retry' | 'cancel';
  };
  /** The client a run is started with (one that marks it for the plugin). Default: the engine's. */
  startClient?(client: Client): Client;
  /** What it does to a run at each kill, once its worker is dead; returns one line for the report. */
  atKill?(run: KilledRun): Promise<string>;
  /** The end it gives a run it stopped (`cancelled`, `terminated`), and whether a run's failure is that stop. */
  readonly stops?: { end: string; is(error: Error): boolean };
  /**
   * The generations after the first kill run this build of the workflow code (`new-build.ts`): the
   * engine batches rows of each build apart, and tells the worker processes by {@link workerEnv}.
   */
  readonly nextBuild?: string;
  /**
   * Runs stay on the build that started them (Worker Versioning, pinned): a history of the first build
   * never meets the next one, so a replay failure there is no damage (`sweep/config/replay-check.ts`).
   */
  readonly pinsRuns?: boolean;
  /** Environment variables for the worker process of each round (which build it runs, and how). */
  workerEnv?(batch: BatchOfFault): Record<string, string>;
  /** What it does once for the batch before its runs start (`round` 0). */
  beforeRuns?(batch: BatchOfFault): Promise<void>;
  /** What it does once for the batch at each round's kill, once the worker is dead, before the next polls. */
  afterKill?(batch: BatchOfFault): Promise<void>;
}

/** What a row says of its faults (`SuiteRow.faults`). */
export interface WithFaults {
  faults?: readonly Fault[];
  firstPassOnly?: boolean;
}

/**
 * Asks `reached` every `everyMs` until it says yes; throws `tooLong()` once `withinMs` has passed: what
 * a fault that waits for the server to carry out an operation (a pause, a new current build) uses.
 */
export async function waitForServer(
  reached: () => Promise<boolean>,
  { withinMs, everyMs, tooLong }: { withinMs: number; everyMs: number; tooLong: () => string },
): Promise<void> {
  const until = Date.now() + withinMs;
  while (!(await reached())) {
    if (Date.now() > until) throw new Error(tooLong());
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
