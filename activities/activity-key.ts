// The running activity's idempotency key, as `keyedActivities` in workflow code made it.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { keyFromActivityId } from '../common/activity-key';

/**
 * The idempotency key of the running activity's call: the same for every attempt and every worker,
 * unique to the call. Pass it to the receiver (an `Idempotency-Key` header, a request id). Throws for
 * an activity that was not scheduled through `keyedActivities`, so a call never goes out with a key
 * that is not its own.
 */
export function activityKey(): string {
  const { activityId, activityType } = Context.current().info;
  const key = keyFromActivityId(activityId);
  if (key === null)
    throw ApplicationFailure.nonRetryable(
      `activity ${activityType} (id ${activityId}) carries no key: schedule it through keyedActivities in the workflow`,
      'NoKey',
    );
  return key;
}
