// The idempotency key of one call: SHA-256 over the run id and the call id, each prefixed by its length.
// One function for workflow code and activity code alike: plain TypeScript, no `node:crypto`.
import { hex, hmacSha256, sha256 } from './sha256';

/**
 * The idempotency key of one tool call of one run.
 *
 * The call id was written to history with the model's reply before the call ran, so every attempt of
 * the call, in this worker or after a restart, computes the same key, and no other call gets it.
 *
 * SHA-256 over, for run then call, the decimal length in UTF-8 bytes, `:`, and the UTF-8 bytes; the
 * hex of the first 16 bytes. The length prefix keeps ("a:b", "c") and ("a", "b:c") apart. Byte for
 * byte the same as the design document's Go `Key`, non-ASCII ids included.
 *
 * With `secret` (the worker's `AGENT_KEY_SECRET`) it is HMAC-SHA-256 under the secret over the same
 * bytes: anyone who reads the run's history sees its run id and call ids, and could otherwise compute
 * the key and use it first at the receiver.
 */
export function key(run: string, call: string, secret?: string): string {
  const encoder = new TextEncoder();
  const framed = encoder.encode([run, call].map((part) => `${encoder.encode(part).length}:${part}`).join(''));
  const digest = secret ? hmacSha256(encoder.encode(secret), framed) : sha256(framed);
  return hex(digest.subarray(0, 16));
}

/** The environment variable that holds the secret keys are derived under (`key`), for the worker and the clients. */
export const KEY_SECRET_ENV = 'AGENT_KEY_SECRET';

/** The secret keys are derived under, from the environment; `undefined` when none is set. */
export function keySecretFromEnv(env: Record<string, string | undefined> = process.env): string | undefined {
  return env[KEY_SECRET_ENV] || undefined;
}

/** The longest idempotency key a receiver of ours takes. */
export const MAX_KEY_LENGTH = 255;

/**
 * Why `value` cannot be an idempotency key, or `null` if it can: a key is a string of 1 to
 * {@link MAX_KEY_LENGTH} visible ASCII characters (no space: a header's edges would drop one), so it
 * reads the same in a header, a path and a database.
 */
export function keyProblem(value: unknown): string | null {
  if (typeof value !== 'string') return `the idempotency key must be a string, not ${typeof value}`;
  if (value.length === 0) return 'the idempotency key is empty';
  if (value.length > MAX_KEY_LENGTH) return `the idempotency key is longer than ${MAX_KEY_LENGTH} characters`;
  if (!/^[\x21-\x7e]+$/.test(value)) return 'the idempotency key may hold only visible ASCII characters (no spaces)';
  return null;
}
