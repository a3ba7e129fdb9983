// What a user's crash-sweep.config.ts declares: `defineSweep` and its types.
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { WorkerPlugin } from '@temporalio/worker';
import type { CrashSweepPluginOptions } from '../plugin';
import type { Counts } from '../judge/counts';

/** What `start` gets: where and under which id to start the run. */
export interface StartContext {
  client: Client;
  /** Start the run on this task queue: the sweep's worker processes poll it. */
  taskQueue: string;
  /** Start the run with this workflow id. */
  workflowId: string;
  /** A fresh id, unique in the sweep (handy for naming the run's records in your systems). */
  runId: string;
  /** The row being swept (see {@link SweepConfig.rows}). */
  row: string;
  /**
   * Pass it as the run's `workflowTaskTimeout`: a task of a killed worker is retried after this long,
   * not 10 s (in a `worker-survives` row, a minute: the live worker's parked task must not time out).
   */
  workflowTaskTimeout: Duration;
}

/** What `check` gets: the run, ended, and its result. */
export interface CheckContext {
  client: Client;
  workflowId: string;
  runId: string;
  row: string;
  /** What the workflow returned (nothing, if it failed). */
  result: unknown;
  /** How it failed, if its workflow threw an `ApplicationFailure` (a saga that compensated, say): its type and message. */
  failure?: string;
  /**
   * The URL of each receiver the config declares (`receivers`), by name, as the run's lane had it
   * (its own process, not the sweep's proxy in front of it): ask it what it did for the run.
   */
  receivers: Record<string, string>;
}

/** A run's damage, from your own systems' records: `dups` and `missing`, and any of the other counts. */
export type CheckResult = Omit<Counts, 'details'>;

/** What the scripted person gets when a run waits for a signal. */
export interface PersonContext {
  client: Client;
  workflowId: string;
  runId: string;
  row: string;
  /** The signals the workflow has handlers for, as the `workflow.waiting` point names them. */
  signals: string[];
}

/** One crash-sweep config: a workflow, how to start it, and how to count what it did to the world. */
export interface SweepConfig {
  /** The row's name (for `--variant`). Default: the config file's name. */
  name?: string;
  /** The row's label in the table. Default: the name. */
  label?: string;
  /**
   * The row is a control (of a config without `rows`): a workflow known to do damage (your code before
   * its fix, say), which must show some. If it shows none, the sweep fails: it cannot see damage, and
   * the zeros of your other configs' rows prove nothing. Default `false`.
   */
  control?: boolean;
  /**
   * Several rows from one file; each run gets its row's name. Default: one row. `slowActivities`: the
   * activity types whose receiver, in this row, is slower than their timeout (they may time out in a
   * live worker, and the audit accepts it for them alone); `firstPassOnly`: no second pass for the row;
   * `serverDies`: the Temporal server is SIGKILLed at each point instead of the worker and restarted on
   * its database file (`worker-survives`: the worker lives on, so your activities' start-to-close
   * timeouts must outlast a batch's parking, a minute is safe; `worker-dies`: the worker dies too);
   * `reset`: at each point the worker dies and the run is reset, as `temporal workflow reset` does, to
   * its last workflow task before the point or to its first; the new run goes on in a fresh worker;
   * `faults`: any of the sweep's faults by name (`docs/config.md` lists them: `reset:first-task`,
   * `retry`, `cancel`, `terminate`, `server-dies:worker-dies`, ...), besides those the fields above name;
   * `nextBuild`: a deploy mid-run, the `new-build` fault: the workflows of the next build (a path, as
   * `workflowsPath`), which every worker after the first kill runs instead of `workflowsPath`'s;
   * `versioning`: how that build is deployed: `unversioned` (the default, as above), or with Worker
   * Versioning, `pinned` or `auto-upgrade` (every worker runs both builds as versions of one Worker
   * Deployment, and at the first kill the next build becomes its current version);
   * `control`: the row is known to do damage and must show some, or the sweep fails (see `control`).
   */
  rows?: Array<{
    name: string;
    label?: string;
    slowActivities?: string[];
    firstPassOnly?: boolean;
    serverDies?: 'worker-survives' | 'worker-dies';
    reset?: 'last-task' | 'first-task';
    faults?: string[];
    nextBuild?: string;
    versioning?: 'unversioned' | 'pinned' | 'auto-upgrade';
    control?: boolean;
  }>;
  /**
   * Receivers the sweep hosts for you, so that its receiver faults can strike them: a row's
   * `receiver-dies:NAME` SIGKILLs the receiver after it acted on each write of a run, before its reply
   * gets back, and starts it again on its port; `slow-receiver:NAME` holds each run's first write until
   * the run comes back (its activity timed out and retried). Each is a Node script (TypeScript too)
   * that listens on 127.0.0.1 at `PORT` and keeps what must outlive its death under `DATA_DIR`; the
   * sweep starts one per lane, behind a proxy of its own whose URL reaches your activities in `urlEnv`.
   * `activities`: the activity types that call it (their timeouts may run out while it is slow).
   * Every activity request carries the run header then (`points.runHeader`): the proxy tells runs apart by it.
   */
  receivers?: Array<{
    name: string;
    script: string;
    urlEnv: string;
    activities: string[];
    env?: Record<string, string>;
  }>;
  /** Your workflows, as for `Worker.create`: `require.resolve('./workflows')`. */
  workflowsPath: string;
  /** Your activities; called in each worker process the sweep starts (after `setup`'s `env` is set). */
  activities: () => object | Promise<object>;
  /**
   * Temporal worker plugins your workers run with (Temporal's `AiSdkPlugin`, say): given to the sweep's
   * bundle of your workflows and to every worker it starts, after the sweep's own plugin. The config
   * file is loaded in each worker process, so each makes its own.
   */
  plugins?: WorkerPlugin[];
  /** Starts your services, in the sweep's process, before anything runs. `env` reaches every worker process. */
  setup?: () => Promise<{ env?: Record<string, string> } | void> | { env?: Record<string, string> } | void;
  /** Stops them. */
  teardown?: () => Promise<void> | void;
  /** Starts one run. */
  start(ctx: StartContext): Promise<WorkflowHandle>;
  /** Counts the damage of one ended run, from your systems' own records (ground truth, not the workflow's word). */
  check(ctx: CheckContext): Promise<CheckResult> | CheckResult;
  /**
   * A scripted person: called each time a run's worker reports it waiting for a signal (again after a
   * restart: send signals that are harmless to repeat).
   */
  person?(ctx: PersonContext): Promise<void>;
  /** Which automatic points to record. Default: all. */
  points?: CrashSweepPluginOptions;
  /**
   * `'capped'` (the default): the runs the sweep starts use activity timeouts no longer than a sweep
   * can wait (start-to-close and heartbeat 4 s, or a minute in a `worker-survives` row; retries after
   * 100 ms, at most 1 s apart), whatever your workflow code says, so production code with
   * `startToCloseTimeout: '5 minutes'` is swept unchanged: a kill inside an activity costs 4 s, not 5
   * minutes. `'own'`: your code's values, as in production.
   */
  activityTimeouts?: 'capped' | 'own';
}

/** Declares a config (for types; it returns what it is given). */
export function defineSweep(config: SweepConfig): SweepConfig {
  return config;
}
