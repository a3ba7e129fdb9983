/**
 * The line protocol between a crash harness and its worker process. The worker prints one JSON line
 * per event on stdout, prefixed so it cannot be confused with logs; the harness reads them.
 */
export const LINE_PREFIX = '@@crash ';

/** Where to park one workflow: the first point reached in this process that matches every given field. */
export interface KillTarget {
  /** The point's position among this workflow's points in this worker process, from 1. */
  index?: number;
  name?: string;
  detail?: string;
}

/** A worker process's instructions: which workflows to park where. Workflows not named run freely. */
export interface CrashPlan {
  targets: Record<string, KillTarget>;
  /**
   * Workflows whose tool calls fail at a point instead of going on: the first time each call (each
   * detail) reaches the named point in this process, the activity throws, as a tool whose server
   * died mid-call would.
   */
  faults?: Record<string, { name: string }>;
  /**
   * Points each named workflow passes without counting them, and is never parked at: the setup of a
   * connection or client that only the first run of a worker process reaches (`clean-twice.ts`). Each
   * is named by {@link pointKey} of {@link samePointForEveryRun}, with the run's own ids.
   */
  uncounted?: Record<string, { ids: RunIds; points: string[] }>;
  /**
   * Workflows the engine failed for their retry policy, or cancelled, at the kill before this process
   * (the `retry` and `cancel` faults: `Fault.inWorker.operated`): the operation lands at the run's point. Until the plugin
   * marks that the run saw it (`FAILED_FOR_RETRY_MARK`, `CANCEL_SEEN_MARK`), the run's points pass
   * uncounted in workflow code (the task that sees it must run) and hold forever in an activity (an
   * attempt the dead worker's timeout handed on acts on nothing). After a retry's mark, the same
   * holds for the execution it failed: the workflow's points in this process are its retry's alone.
   * So what follows the operation does not depend on how the dead worker's timeouts raced it.
   */
  operated?: Record<string, 'retry' | 'cancel'>;
}

/** A run's own ids, as a point's detail may carry them. */
export interface RunIds {
  workflowId: string;
  /** The run id in the run's input (the engine's, not Temporal's). */
  runId: string;
  /** The scenario's tag (`ROW-PASS-N`), which a suite may put into a run's input. */
  tag: string;
}

/** A point as runs compare it: its name and its detail. */
export interface ComparedPoint {
  name: string;
  detail: string;
}

/** How a point is named where runs compare points (`CleanComparison.setup`, {@link CrashPlan.uncounted}). */
export function pointKey(p: ComparedPoint): string {
  return `${p.name} ${p.detail}`;
}

/**
 * A point's detail with a run's own ids written `{workflowId}`, `{runId}` and `{tag}`, so that two runs'
 * points compare. The engine and the worker both name points so, with the same ids.
 */
export function samePointForEveryRun(p: ComparedPoint, ids: RunIds): ComparedPoint {
  const detail = p.detail
    .split(ids.workflowId)
    .join('{workflowId}')
    .split(ids.runId)
    .join('{runId}')
    .split(ids.tag)
    .join('{tag}');
  return { name: p.name, detail };
}

/** What the worker reports. */
export type CrashEvent =
  | { type: 'ready' }
  | { type: 'point'; workflowId: string; index: number; name: string; detail: string }
  /** `at`: when the worker parked the run (ms since the epoch, the machine's clock). */
  | { type: 'parked'; workflowId: string; index: number; name: string; detail: string; at: number }
  /** An activity of this process outlived its timeout: the server gave up on a live attempt. */
  | { type: 'late'; workflowId: string; activityType: string; detail: string }
  /**
   * This process started an activity attempt of a run after it parked the run (the parked attempt timed
   * out before the kill, and the server handed the retry here): the attempt holds, spending the call's
   * attempts, which a kill at one instant would not.
   */
  | {
      type: 'taken-while-parked';
      workflowId: string;
      name: string;
      detail: string;
      activityId: string;
      activityType: string;
      attempt: number;
    };

/** Parses one output line; `null` for a line that is not part of the protocol (a log line). */
export function parseEventLine(line: string): CrashEvent | null {
  if (!line.startsWith(LINE_PREFIX)) return null;
  return JSON.parse(line.slice(LINE_PREFIX.length)) as CrashEvent;
}

/** Whether a point matches a target. */
export function matches(target: KillTarget, index: number, name: string, detail: string): boolean {
  return (
    (target.index === undefined || target.index === index) &&
    (target.name === undefined || target.name === name) &&
    (target.detail === undefined || target.detail === detail)
  );
}
