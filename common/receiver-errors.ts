/**
 * How a call to a receiver (the tracker, an MCP server) failed, in plain errors: services and their
 * clients use them without Temporal; the activities turn them into Temporal failures at their edge
 * (`activities/errors.ts`).
 */

/** The receiver refused the request (a 4xx, bad arguments): nothing happened, and sending it again would be refused again. */
export class ReceiverRefusedError extends Error {
  constructor(
    message: string,
    /** A short name of the refusal, such as `InvalidArguments`. */
    readonly type = 'Refused',
  ) {
    super(message);
    this.name = 'ReceiverRefusedError';
  }
}

/** The receiver failed in a way that may pass (a 5xx, a dropped connection): the request may be sent again. */
export class ReceiverUnavailableError extends Error {
  constructor(
    readonly url: string,
    readonly status: number | null,
    message: string,
    /** No byte of the request left this process (the connection was refused): it cannot have acted. */
    readonly notSent = false,
  ) {
    super(message);
    this.name = 'ReceiverUnavailableError';
  }
}
