/**
 * What this project's MCP client and servers agree on beyond the MCP specification. A server that
 * knows none of it still works: its tools are then treated as effectful and unkeyed.
 */

/** `_meta` field of a `tools/call` request carrying the call's idempotency key. The client always sends it. */
export const KEY_META = 'idempotency-key';

/**
 * `_meta` field of a tool definition (in `tools/list`) saying how the server settles repeats:
 * `keyed: true` when the server honours the key in {@link KEY_META} (a repeat with the same key acts
 * once); `lookup: "<tool>"` names a read-only tool that answers whether a call with a given key happened.
 */
export const TOOL_META = 'idempotency';

/** The value of {@link TOOL_META}. */
export interface ToolIdempotency {
  keyed?: boolean;
  lookup?: string;
}

/** `_meta` field of a result: how many seconds the receiver keeps the call's key (as its `Idempotency-Key-Retention-Seconds`). */
export const RETENTION_META = 'idempotency-key-retention-seconds';

/** Arguments of a lookup tool. The run's `repo` is added when the tool's schema has one. */
export interface LookupArgs {
  /** The tool whose call is in doubt. */
  tool: string;
  key: string;
  /**
   * The call's own arguments, so the server says "happened" only for a record of this very call, not
   * for whatever holds its key or trace. A server that does not declare it ignores it.
   */
  arguments?: Record<string, unknown>;
}

/** A lookup tool's answer, as JSON text. */
export interface LookupResult {
  happened: boolean;
  /** What the call returned, when it happened. */
  result?: string;
  /** With `happened: false`: a record under the call's key or trace that is not this call's, for a person to judge. */
  mismatch?: string;
}

/**
 * `_meta` field of an error result: `"unknown"` when the tool may have acted before it failed (its
 * receiver went away mid-request), so the client must not read the error as "nothing happened";
 * `"none"` when the tool did nothing (bad arguments, a refusal). Without it, an error of a tool that
 * changes something and does not honour keys counts as unknown (a third-party tool may have acted and
 * then failed upstream); any other tool's error means it did nothing.
 */
export const OUTCOME_META = 'outcome';
