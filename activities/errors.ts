// How a receiver's failure becomes a Temporal failure: 4xx refusals are non-retryable, the rest retried.
import { ApplicationFailure } from '@temporalio/activity';
import { ReceiverRefusedError, ReceiverUnavailableError } from '../common/receiver-errors';

export { ReceiverUnavailableError };

/**
 * The receiver refused a request (a 4xx): nothing happened, and sending it again would be refused
 * again, so the activity fails without retries and the model is told why.
 */
export function refused(message: string, type = 'Refused'): ApplicationFailure {
  return ApplicationFailure.create({ message, type, nonRetryable: true });
}

/**
 * A receiver's error as the activity reports it. A refusal fails without retry. A request that was
 * never sent (connection refused) did nothing either, when no earlier attempt of the call may have
 * acted (`retrying` false): it fails without retry too, and the model hears the receiver is down.
 * Anything else is thrown as it is, so its outcome is unknown and Temporal (or the ladder) settles it.
 */
export function asActivityError(err: unknown, retrying: boolean): unknown {
  if (err instanceof ReceiverRefusedError) return refused(err.message, err.type);
  if (err instanceof ReceiverUnavailableError && err.notSent && !retrying)
    return refused(`${err.message} (nothing was sent)`, 'ReceiverUnreachable');
  return err;
}
