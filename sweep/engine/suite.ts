// The suite interface: what the engine needs from the thing it sweeps.
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Counts } from './counting';
import type { CrashEvent } from '../worker/line-protocol';

/**
 * What the sweep engine needs from the thing it sweeps. The engine records points, runs generations
 * of worker processes, kills them, audits histories and prints the table; a suite says which runs to
 * start, how its worker processes start, and how to count the damage from its own systems. The agent
 * loop and the five designs are one suite (`agent/agent-suite.ts`); a user's `crash-sweep.config.ts` is
 * another (`config/config-suite.ts`).
 */
export interface SweepSuite<R extends SuiteRow = SuiteRow> {
  /** The rows of the table, in order: each is swept on its own. */
  rows: readonly R[];
  /** How a worker process (a generation) starts: `node [...execArgv] script`, with `env` besides the engine's variables. */
  worker: WorkerLaunch;
  /** What a batch of runs needs besides the worker (extra variables, something to do while the engine waits). */
  batch?(lane: number, runs: SuiteRun<R>[]): Promise<BatchPlan>;
  /** Starts one run (on `run.client`). */
  start(client: Client, run: SuiteRun<R>): Promise<WorkflowHandle>;
  /** Sees every point a worker reports for a run (a scripted person answers here). */
  onPoint?(run: SuiteRun<R>, event: PointEvent): void;
  /** Resolves when all the work `onPoint` started has been done. */
  settle?(): Promise<void>;
  /**
   * Counts an ended run's damage from the receivers' own records; throws if the run is not countable.
   * `result` is what the workflow returned; a run that failed as its code chose (it threw an
   * `ApplicationFailure`) has none, and `failure` says how it failed.
   */
  check(run: SuiteRun<R>, result: unknown, failure?: string): Promise<Counts>;
  /** The suite's own figures for the report (the agent's: MCP server kills). */
  stats?(): Record<string, number>;
  /**
   * Whether a run that waits with nothing in flight, 10 s after its last event, is stuck (`stuck.ts`):
   * a user's workflow may wait for a callback no receiver will send. The agent's suite leaves it off:
   * its loop waits only for the sweep's own person. Default `false`.
   */
  waitingRunsStuck?: boolean;
  /** What the report says of how the suite runs its rows (a config's: its activities' timeouts, capped). */
  notes?: readonly string[];
  /** Stops what the suite started. */
  close?(): Promise<void>;
}

/** One row of the table. */
export interface SuiteRow {
  /** Its name, for `--variant`. */
  name: string;
  /** Its label in the table. */
  label: string;
  /** What fails in it besides the worker (the table groups rows under a heading per group). Default: the worker only. */
  group?: string;
  /**
   * A fault to inject: the first time each call (each point detail) of a run reaches this point in a
   * worker process, the point throws, as a tool whose server died mid-call would. Default none.
   */
  fault?: string;
  /** A clean run of this row may retry an activity (it injects a fault, or kills a server of its own). Default `false`. */
  retries?: boolean;
  /**
   * Activity types whose receiver, in this row, is slower than their timeout: they may time out in a
   * live worker, and the audit and the lateness check accept it for them (for no other type). Default none.
   */
  slowActivities?: readonly string[];
  /**
   * The row's fault does damage with no kill at all (a slow receiver without key claims): its clean run
   * may leave duplicates, losses, orphans or questions, and every scenario counts them too. Default
   * `false`: a clean run must leave none, so that all the damage in the table is the kills'.
   */
  damagedWithoutKills?: boolean;
  /**
   * Swept in the first pass only, even when the sweep makes a second: the row's restarts are too long
   * for the second pass's batches (a run parked early waits while the rest of its batch parks, and an
   * activity with few retries runs out of them meanwhile). Default `false`.
   */
  firstPassOnly?: boolean;
  /**
   * The Temporal server dies at each kill: the row's runs live on a dev server of their
   * own, on a database file, which the harness SIGKILLs at the kill's point and starts again on the
   * same file and port. `worker-survives`: the worker is not killed; its parked runs go on once the
   * server is back (their timeouts must outlast a batch's parking: nothing may time out in a live
   * worker). `worker-dies`: the worker is killed too, while the server is down, and a fresh one
   * finishes the run. Default: only the worker dies.
   */
  serverDies?: 'worker-survives' | 'worker-dies';
  /**
   * What happens to the run at each kill, once its worker is dead. The new run goes on in a fresh
   * worker, under the same workflow id. Default none: the run only loses its worker.
   * - `reset`: a person resets it to its last workflow task before the point, or to its first
   *   (`ResetWorkflowExecution`, as `npm run reset` and `temporal workflow reset` do).
   * - `retry`: it fails (the engine signals it; the crash-sweep plugin's workflow interceptor throws a
   *   retryable `ApplicationFailure` in its next workflow task), and its retry policy starts it over
   *   with the same input. The suite must start the row's runs with a retry policy (`start` gets a
   *   client that marks them for the interceptor).
   * - `cancel`, `terminate`: a person stops it (`RequestCancelWorkflowExecution`, as `npm run cancel`
   *   does; `TerminateWorkflowExecution`). Its end is then `cancelled` or `terminated`, which is no
   *   other end than its clean run's, and the suite counts what it leaves half done (`Counts.halfDone`).
   *   Nothing runs after the stop, so there is nothing to kill again: such a row is `firstPassOnly`.
   */
  operation?: RunOperation;
}

/** What happens to a run at a kill, done by the engine (`SuiteRow.operation`). */
export type RunOperation =
  { kind: 'reset'; to: 'last-task' | 'first-task' } | { kind: 'retry' } | { kind: 'cancel' } | { kind: 'terminate' };

/** A run the engine started for a scenario. */
export interface SuiteRun<R extends SuiteRow = SuiteRow> {
  row: R;
  workflowId: string;
  /** A fresh id for the run (the agent's run id, from which its idempotency keys are made). */
  runId: string;
  /** A name unique in the sweep, for the run's own corner of a receiver (the agent's repository). */
  tag: string;
  taskQueue: string;
  /** A client of the Temporal server the run lives on (signal it, read its history here). */
  client: Client;
}

/** A worker process's command: the script and Node flags, and its environment besides the engine's. */
export interface WorkerLaunch {
  script: string;
  execArgv?: string[];
  env?: Record<string, string>;
  /** Its working directory. Default: this package's root. */
  cwd?: string;
}

/** What one batch adds. */
export interface BatchPlan {
  /** More variables for the batch's worker processes. */
  env?: Record<string, string>;
  /** Called every 25 ms while the engine waits for the batch's runs (the agent kills its MCP servers here). */
  poll?(state: {
    isParked(workflowId: string): boolean;
    ended: ReadonlySet<string>;
    /** Runs not started yet (a second clean run waits for its first to end): they ask nothing of anyone now. */
    notStarted: ReadonlySet<string>;
  }): Promise<void>;
}

/** A crash point a worker reported for a run (reached, or parked at). */
export type PointEvent = Extract<CrashEvent, { type: 'point' | 'parked' }>;
