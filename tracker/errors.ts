/**
 * Thrown when a request cannot be served as asked; the app's error handler turns it into
 * `{error, message}` with this status. `code` is stable for programs, `message` is for people.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Thrown when a repeated idempotency key arrives with a different payload than its first use. */
export class KeyReusedError extends HttpError {
  constructor(readonly key: string) {
    super(422, 'idempotency_key_reused', `idempotency key ${key} was first used with a different request`);
    this.name = 'KeyReusedError';
  }
}
