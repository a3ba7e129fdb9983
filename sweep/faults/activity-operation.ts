// An operator pauses, resets or shortens the timeout of a tool call stuck at its receiver, with no process dying.
import type { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { waitForServer, type Fault } from './fault';

/**
 * What the operator does to the stuck activity: `pause` (`PauseActivity`, then `UnpauseActivity` once
 * the attempt has ended, as `temporal activity pause` and `unpause` do), `reset` (`ResetActivity`), or
 * `options`: shorten its start-to-close timeout to {@link SHORTENED_TIMEOUT_S} s (`UpdateActivityOptions`,
 * as `temporal activity update-options` does), so that the stuck attempt times out.
 */
export type ActivityOperation = 'pause' | 'reset' | 'options';

/**
 * The start-to-close timeout the `options` operation gives a stuck call, in seconds. It holds for the
 * call's retries too: at 1 s a CI's clean runs of a row took a shorter path than its kills (likely a
 * retry that timed out on the busy machine, whose points pass as an abandoned attempt's).
 */
export const SHORTENED_TIMEOUT_S = 3;

/** Which operation, and what the row's checks must tolerate. */
export interface ActivityOperationOptions {
  operation: ActivityOperation;
  /** Its row shows damage with no kill at all (a loop that sends the call again without a key). Default `false`. */
  damagedWithoutKills?: boolean;
}

/** An activity operation, as a fault: the suite that owns the receiver carries it out ({@link operateOnStuckCall}). */
export interface ActivityOperationFault extends Fault {
  readonly kind: 'activity-operation';
  readonly operation: ActivityOperation;
}

/**
 * An operator's activity operation (Temporal server 1.28 and later; the bundled dev server has them)
 * on a tool call stuck at its receiver: the receiver acted on the run's first write and its reply is
 * lost (a partition, `partition.ts`), so the call hangs; the operator, seeing it, acts on the activity.
 * A pause or a reset reaches the running attempt at its next heartbeat (a call that does not heartbeat
 * hears nothing, and they change nothing), and the attempt stops there:
 *
 * - `pause`: once the attempt has ended, the operator unpauses the activity and the server starts the
 *   next attempt at once, even for a call allowed one try (`maximumAttempts: 1`): the workflow never
 *   sees an unknown outcome, so no rung of the ladder is asked unless the activity itself notices it
 *   is a second attempt of a one-try call.
 * - `reset`: the attempt's cancel ends the call, which the workflow sees fail (its one try used up).
 * - `options`: the shorter timeout applies to the attempt that runs: it times out on the server, as
 *   any timeout does (a retry where the call is retried, an unknown outcome where it has one try).
 *
 * First pass only: every run waits a heartbeat (or a timeout) at its first write, too long for a second
 * pass's batches.
 */
export function activityOperation(options: ActivityOperationOptions): ActivityOperationFault {
  const { operation } = options;
  return {
    name: `activity-operation:${operation}`,
    kind: 'activity-operation',
    target: 'activity',
    summary: {
      pause:
        'an operator pauses the call stuck at the receiver (its reply lost), and unpauses it once its attempt stops',
      reset: 'an operator resets the call stuck at the receiver (its reply lost)',
      options: `an operator shortens the start-to-close timeout of the call stuck at the receiver (its reply lost) to ${SHORTENED_TIMEOUT_S} s`,
    }[operation],
    tolerates: { retries: true, ...(options.damagedWithoutKills ? { damagedWithoutKills: true } : {}) },
    firstPassOnly: true,
    operation,
  };
}

/** What an activity operation a row names does, if the row names one. */
export function activityOperationOf(row: { faults?: readonly Fault[] }): ActivityOperation | undefined {
  return row.faults?.find((f): f is ActivityOperationFault => f.kind === 'activity-operation' && 'operation' in f)
    ?.operation;
}

const { PendingActivityState } = temporal.api.enums.v1;

/** How long the operator waits for an attempt to stop after a pause: a few heartbeats. */
const STOP_WAIT_MS = 30_000;
const POLL_MS = 100;

/**
 * Carries out `operation` on the run's running activity of type `activityType` (the call stuck at its
 * receiver; given the types that call a receiver, the one of them that runs); returns one line of what was done. A pause waits until the attempt has stopped (the
 * server marks the activity paused, no longer pause-requested), then unpauses: an unpause before that
 * would find nothing to resume. Throws if the run has no such activity running, or its attempt does
 * not stop within {@link STOP_WAIT_MS} (a call that does not heartbeat never hears of the pause).
 */
export async function operateOnStuckCall(
  client: Client,
  workflowId: string,
  operation: ActivityOperation,
  activityTypes: string | readonly string[],
): Promise<string> {
  const { namespace, identity } = client.options;
  const execution = { workflowId };
  const types: readonly string[] = typeof activityTypes === 'string' ? [activityTypes] : activityTypes;
  const all = async () =>
    (await client.workflowService.describeWorkflowExecution({ namespace, execution })).pendingActivities ?? [];
  const first = (await all()).find(
    (a) =>
      types.includes(a.activityType?.name ?? '') && a.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
  );
  if (!first) throw new Error(`${workflowId} has no ${types.join(' or ')} running for the operator to ${operation}`);
  const running = first;
  const activityType = running.activityType?.name ?? '';
  const pending = async () => (await all()).find((a) => a.activityId === running.activityId);
  const id = running.activityId ?? '';
  if (operation === 'reset') {
    await client.workflowService.resetActivity({ namespace, execution, identity, id });
    return `reset ${activityType} while its attempt ${running.attempt} was stuck`;
  }
  if (operation === 'options') {
    await client.workflowService.updateActivityOptions({
      namespace,
      execution,
      identity,
      id,
      activityOptions: { startToCloseTimeout: msToTs(SHORTENED_TIMEOUT_S * 1000) },
      updateMask: { paths: ['start_to_close_timeout'] },
    });
    return `shortened the start-to-close timeout of ${activityType} to ${SHORTENED_TIMEOUT_S} s while its attempt ${running.attempt} was stuck`;
  }
  await client.workflowService.pauseActivity({ namespace, execution, identity, id, reason: 'a call stuck' });
  await waitForServer(
    async () => {
      const now = await pending();
      // Paused is the attempt stopped; pause-requested is the attempt still running.
      return !now || now.state === PendingActivityState.PENDING_ACTIVITY_STATE_PAUSED;
    },
    {
      withinMs: STOP_WAIT_MS,
      everyMs: POLL_MS,
      tooLong: () =>
        `${workflowId}: ${activityType} attempt ${running.attempt} went on for ${STOP_WAIT_MS / 1000} s after a pause (does it heartbeat?)`,
    },
  );
  await client.workflowService.unpauseActivity({ namespace, execution, identity, id });
  return `paused ${activityType} while its attempt ${running.attempt} was stuck, and unpaused it once the attempt stopped`;
}
