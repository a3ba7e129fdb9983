/**
 * The secrets this process holds (tokens, API keys, values the MCP configuration takes from the
 * environment), so that none of them leaves it in a message: an activity's error or result, which
 * Temporal stores in history, or a log line. Each is replaced by `[redacted]`.
 *
 * Only values that are secrets by where they come from are registered, never every configured value:
 * redacting a common word (`true`, `production`) would corrupt what the model reads.
 */
const secrets = new Set<string>();

/** Shorter values are not registered: they would match ordinary text. */
export const MIN_SECRET_LENGTH = 6;

/** What a secret becomes in a message. */
export const REDACTED = '[redacted]';

/** Registers secrets (empty and short values are ignored). */
export function registerSecrets(...values: Array<string | undefined | null>): void {
  for (const value of values) if (value && value.length >= MIN_SECRET_LENGTH) secrets.add(value);
}

/** `text` with every registered secret replaced by {@link REDACTED}; longer secrets first, so none is left half-shown. */
export function redactSecrets(text: string): string {
  if (secrets.size === 0) return text;
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join(REDACTED);
  return out;
}

/** A value with every string in it redacted (objects and arrays copied, other values kept). */
export function redactDeep<T>(value: T): T {
  if (secrets.size === 0) return value;
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v)])) as T;
  }
  return value;
}

/** Redacts an error's message and stack, and those of its causes, in place; returns it. */
export function redactError<T>(err: T): T {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    e.message = redactSecrets(e.message);
    if (e.stack) e.stack = redactSecrets(e.stack);
  }
  return err;
}

/** The names of environment variables that hold secrets, by convention. */
export function looksSecret(name: string): boolean {
  return /TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE|CREDENTIAL|AUTH/i.test(name);
}
