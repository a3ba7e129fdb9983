// A run that can never finish: after its last restart it keeps retrying an activity that fails the same way.
import type { Client } from '@temporalio/client';

/**
 * The attempts after which an activity that keeps failing, with no kill left to come, makes its run
 * stuck. A kill costs an activity one or two attempts; with the sweep's retry waits (100 ms, at most
 * 1 s apart) ten take about 7 s.
 */
export const STUCK_AFTER_ATTEMPTS = 10;

/** Why a run is stuck: the activity that keeps failing, how often it has tried, and its last failure. */
export interface Stuck {
  activity: string;
  attempt: number;
  failure: string;
}

/** One line for people: `activity charge keeps failing (attempt 10): 400 Invalid status transition`. */
export function describeStuck(s: Stuck): string {
  return `activity ${s.activity} keeps failing (attempt ${s.attempt}): ${s.failure}`;
}

/**
 * Whether a run that should have finished is stuck: an activity of it is pending at its
 * {@link STUCK_AFTER_ATTEMPTS}th attempt or later, its last attempt failed (not timed out: a timeout is
 * what a kill leaves), and a retry will fail the same way. Read from the server alone.
 */
export async function findStuck(client: Client, workflowId: string): Promise<Stuck | null> {
  let pending;
  try {
    ({ pendingActivities: pending } = (await client.workflow.getHandle(workflowId).describe()).raw);
  } catch {
    return null; // it ended meanwhile, or the server did not answer: asked again on the next round
  }
  for (const a of pending ?? []) {
    const failure = a.lastFailure;
    if ((a.attempt ?? 0) >= STUCK_AFTER_ATTEMPTS && failure && !failure.timeoutFailureInfo)
      return { activity: a.activityType?.name ?? '?', attempt: a.attempt!, failure: failure.message ?? '' };
  }
  return null;
}
