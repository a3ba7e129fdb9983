/**
 * Thrown when a request cannot be served as asked; the app's error handler turns it into
 * `{error, message}` with this status. `code` is stable for programs, `message` is for people.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** More for programs, sent beside `error` and `message`. */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** A keyed request as the tracker keeps it beside its response: what the key was first used for. */
export interface KeyedRequest {
  method: string;
  path: string;
  body: unknown;
}

/**
 * Thrown when a repeated idempotency key arrives with a different payload than its first use; the
 * first request goes with it (`first`), when the tracker has it, so whoever holds the key sees both.
 */
export class KeyReusedError extends HttpError {
  constructor(
    readonly key: string,
    first?: KeyedRequest,
  ) {
    super(
      422,
      'idempotency_key_reused',
      `idempotency key ${key} was first used with a different request`,
      first ? { first } : undefined,
    );
    this.name = 'KeyReusedError';
  }
}
