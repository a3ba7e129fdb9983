/**
 * Crash points: named boundaries where a worker can die, reported by activities and (through a sink)
 * by workflow code. In a normal worker nothing listens and a point costs one function call. A crash
 * harness installs a hook that records each point and, at the chosen one, parks the caller until the
 * worker is SIGKILLed.
 *
 * Points come in before/after pairs around each step, so the names say which side of a step a crash
 * lands on. The list, with what the world looks like at each, is in {@link POINTS}.
 */

/** Every crash point, with the state a worker killed there leaves behind. */
export const POINTS = {
  'tools.listed': "the MCP servers' tools are listed; the activity has not reported them",
  'model.started': 'a model activity is running and has not asked the model yet',
  'model.returned': "the model's reply has arrived; the activity has not reported it",
  'tool.started': 'a tool activity has started (its attempt is on the server: the marker) and sent nothing',
  'tracker.accepted': 'the tracker has committed a request and replied; the worker has not read the reply',
  'mcp.accepted':
    "an MCP server has the tracker's reply and has not answered its client (a point in the MCP server's process)",
  'tool.returned': 'a tool activity has its result and has not reported it',
  'turn.returned': 'a whole-turn activity has its results and has not reported them',
  'lookup.started': 'a lookup activity has started and asked nothing',
  'lookup.returned': 'a lookup has its answer and has not reported it',
  'workflow.decided': 'a workflow task has decided its commands and has not reported them',
  'approval.pending': 'a call waits for a person to approve it',
  'question.asked': 'a call waits for a person to say whether it happened',
  // Recorded by the crash-sweep plugin in any worker, with no call in the user's code:
  'activity.started': 'an activity has started (its attempt is on the server) and done nothing',
  'http.accepted':
    "an activity's HTTP request has its response headers: the receiver acted, the activity has not read the body",
  'activity.returned': 'an activity has its result and has not reported it',
  'workflow.waiting':
    'a workflow task ends with the workflow blocked on a condition, waiting for a signal (a person to act)',
} as const;

/** The signal list of a `workflow.waiting` point whose workflow has no signal handler. */
export const NO_SIGNALS = '(none)';

/**
 * The signal the sweep's engine sends a run to fail it for its retry policy (`SuiteRow.operation`
 * `retry`). The crash-sweep plugin's workflow interceptor answers it by failing the run with a
 * retryable `ApplicationFailure`, as a workflow that threw at that point would; only in a run started
 * with {@link FAIL_FOR_RETRY_HEADER}, so that a worker that keeps the plugin outside a sweep has no
 * signal anyone could fail its runs with.
 */
export const FAIL_FOR_RETRY_SIGNAL = 'crash-sweep.fail-for-retry';

/** The start header of a run the sweep may fail for its retry policy (the engine adds it). */
export const FAIL_FOR_RETRY_HEADER = 'crash-sweep-fail-for-retry';

/** The failure type of a run the sweep failed for its retry policy. */
export const FAILED_FOR_RETRY = 'CrashSweepFailedForRetry';

/**
 * What the plugin's workflow interceptor reports (through the `crashPoints` sink) as it fails an
 * execution for the sweep's fail-for-retry signal: not a crash point, but the harness's word that this
 * execution is done and the run's next points are its retry's.
 */
export const FAILED_FOR_RETRY_MARK = 'workflow.failed-for-retry';

/**
 * What the plugin's workflow interceptor reports (through the `crashPoints` sink) when a run's
 * workflow task carries a request to cancel it: not a crash point, but the harness's word that the
 * run has seen the cancel, and what it does next is its own clean-up.
 */
export const CANCEL_SEEN_MARK = 'workflow.cancel-seen';

/** The name of a crash point. */
export type PointName = keyof typeof POINTS;

/** Where a point was reached: which workflow, and what step (tool and call id, command kinds…). */
export interface PointContext {
  workflowId: string;
  detail: string;
  /**
   * Reached in workflow code (through the `crashPoints` sink), not in an activity. A workflow task that
   * runs again passes such points again with no activity between, so a harness counts them once.
   */
  fromWorkflow?: boolean;
  /**
   * The Temporal run id of the execution that reached it (a workflow id names a new execution after a
   * reset or a retry). Optional: a point without it is taken to be the workflow's current execution's.
   */
  execution?: string;
}

/** Called at every point; may return a promise that never settles, to park the caller until the kill. */
export type CrashHook = (name: string, context: PointContext) => void | Promise<void>;

/**
 * The hook lives on `globalThis`, not in this module: a process may load this file twice (the
 * package's sources, which the sweep runs, and its compiled copy in `dist/`, which a user's worker
 * imports), and a point reached through either copy must reach the one hook.
 */
const HOOK = Symbol.for('crash-safe-agent.crash-hook');
const holder = globalThis as { [HOOK]?: CrashHook | null };

/** Installs the harness's hook (or removes it with `null`). Only crash harnesses call this. */
export function setCrashHook(next: CrashHook | null): void {
  holder[HOOK] = next;
}

/**
 * Marks a crash point. Resolves at once unless a harness chose to park here. A name of your own (any
 * string) marks a finer point in your activity than the automatic ones.
 */
export async function crashPoint(name: PointName | (string & {}), context: PointContext): Promise<void> {
  const hook = holder[HOOK];
  if (hook) await hook(name, context);
}
