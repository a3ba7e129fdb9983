// How a receiver's failure becomes a Temporal failure: 4xx refusals are non-retryable, the rest retried.
import { ApplicationFailure } from '@temporalio/activity';
import { ReceiverRefusedError, ReceiverUnavailableError } from '../common/receiver-errors';
import { cutUtf8 } from './tool-output';

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

/** The most of an error's message (and of its stack) an activity hands Temporal: 64 KiB. */
export const MAX_ERROR_MESSAGE_BYTES = 64 * 1024;

/**
 * An error cut to {@link MAX_ERROR_MESSAGE_BYTES} in its message and its stack, and in its causes',
 * in place: a receiver's error text of megabytes would otherwise go into history twice (message and
 * stack) and past Temporal's payload limit, failing the run instead of the call.
 */
export function cappedError<T>(err: T): T {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    const bytes = Buffer.byteLength(e.message, 'utf8');
    if (bytes > MAX_ERROR_MESSAGE_BYTES)
      e.message = `${cutUtf8(e.message, MAX_ERROR_MESSAGE_BYTES)}\n[message cut: it was ${bytes} bytes; the first ${MAX_ERROR_MESSAGE_BYTES} are shown]`;
    if (e.stack && Buffer.byteLength(e.stack, 'utf8') > MAX_ERROR_MESSAGE_BYTES)
      e.stack = cutUtf8(e.stack, MAX_ERROR_MESSAGE_BYTES);
  }
  return err;
}
