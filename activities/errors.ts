import { ApplicationFailure } from '@temporalio/activity';

/**
 * The receiver refused a request (a 4xx): nothing happened, and sending it again would be refused
 * again, so the activity fails without retries and the model is told why.
 */
export function refused(message: string, type = 'Refused'): ApplicationFailure {
  return ApplicationFailure.create({ message, type, nonRetryable: true });
}

/** Thrown when a receiver fails in a way that may pass (a 5xx, a dropped connection): Temporal retries it. */
export class ReceiverUnavailableError extends Error {
  constructor(
    readonly url: string,
    readonly status: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'ReceiverUnavailableError';
  }
}
