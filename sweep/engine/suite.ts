// The suite interface: what the engine needs from the thing it sweeps.
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Counts } from '../judge/counts';
import type { CrashEvent } from '../worker/line-protocol';
import type { Fault } from '../faults';

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
   * The faults its runs meet besides the worker's death at each point (`sweep/faults/`): the Temporal
   * server dies, a receiver dies or is slow, a call throws, a person resets, fails, cancels or
   * terminates the run. Default none: only the worker dies.
   */
  faults?: readonly Fault[];
  /**
   * Swept in the first pass only, even when the sweep makes a second (as a fault may say of itself):
   * the row's restarts are too long for the second pass's batches. Default `false`.
   */
  firstPassOnly?: boolean;
  /**
   * A control: a row known to do damage under its faults (a loop without keys, a careless deploy),
   * which must show some. A sweep in which a control shows none fails (`judge/controls.ts`): it cannot
   * see damage, and the other rows' zeros prove nothing. Default `false`.
   */
  control?: boolean;
}

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
