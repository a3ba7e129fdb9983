// A clean run's verdict: it must leave nothing to count, reach points, and see no retry or timeout.
import type { Client } from '@temporalio/client';
import type { Outcome } from './counts';
import { timedOutActivityType } from './audit';
import { toleranceOf } from '../faults';
import type { RanScenario, Scenario } from '../engine/scenario';

/** Thrown when a clean run is not clean: every count of the sweep would be meaningless. */
export class DirtyCleanRunError extends Error {
  readonly row: string;
  /** A busy machine can cause it (a timeout): the clean run is run again before the sweep gives up. */
  readonly mayBeLoad: boolean;
  constructor(row: string, reason: string, mayBeLoad = false) {
    super(`the clean run of ${row} ${reason}`);
    this.row = row;
    this.mayBeLoad = mayBeLoad;
    this.name = 'DirtyCleanRunError';
  }
}

/**
 * A clean run must see no retry and no timeout, so that every duplicate the sweep reports was caused
 * by a kill. Only a row that injects a fault (or kills a server of its own, or has a slow receiver) may
 * retry, and only after a failure; only its slow activities may time out. Returns the first problem.
 */
export async function historyProblem(client: Client, s: Scenario): Promise<DirtyCleanRunError | null> {
  const history = await client.workflow.getHandle(s.workflowId).fetchHistory();
  const events = history.events ?? [];
  for (const e of events) {
    const timedOut = e.activityTaskTimedOutEventAttributes;
    if (timedOut && !toleranceOf(s.row).slowActivities.includes(timedOutActivityType(events, e)))
      return new DirtyCleanRunError(s.row.name, 'had an activity time out', true);
    if (e.workflowTaskTimedOutEventAttributes)
      return new DirtyCleanRunError(s.row.name, 'had a workflow task time out', true);
    if (e.workflowTaskFailedEventAttributes) return new DirtyCleanRunError(s.row.name, 'had a workflow task fail');
    const started = e.activityTaskStartedEventAttributes;
    const attempt = started?.attempt ?? 1;
    if (attempt > 1 && !toleranceOf(s.row).retries) {
      // An attempt that timed out in a live worker leaves no event of its own, only the next attempt's
      // last failure: a busy machine, which a run again may not meet.
      const afterTimeout = !!started?.lastFailure?.timeoutFailureInfo;
      return new DirtyCleanRunError(
        s.row.name,
        `retried an activity (attempt ${attempt}${afterTimeout ? ', after a timeout' : ''})`,
        afterTimeout,
      );
    }
  }
  return null;
}

/**
 * Holds one clean run (ended, its last run's history problem, if any, in `problem`) to what a clean run
 * must be, and throws the reason it is not: it failed, left damage its row's faults do not allow,
 * reached no crash point, or its history shows a retry or a timeout. Returns its outcome.
 */
export function judgeCleanRun(c: RanScenario, problem: DirtyCleanRunError | undefined): Outcome {
  if (c.error) throw new DirtyCleanRunError(c.row.name, `failed: ${c.error}`);
  const o = c.outcome!;
  if (!toleranceOf(c.row).damagedWithoutKills && (o.dups !== 0 || o.missing !== 0 || o.orphans !== 0 || o.asks !== 0))
    throw new DirtyCleanRunError(c.row.name, `left ${JSON.stringify(o)}`);
  if (c.finalPoints.length === 0)
    throw new DirtyCleanRunError(c.row.name, 'reached no crash point: is the crash-sweep plugin in its worker?');
  // Its last run's history (every run of it met the machine's load).
  if (problem) throw problem;
  return o;
}
