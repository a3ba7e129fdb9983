// What a repeat of a call does: the one vocabulary of `defineTool` and `keyedActivities`, and what the ladder reads from it.

/**
 * What a repeat of a call does, which is what the resolution ladder needs to know after a crash:
 * - `read-only`: it only reads; a repeat is harmless.
 * - `idempotent`: it changes something, but twice leaves the same state as once.
 * - `keyed`: it passes its key to a receiver that honours it (does nothing for a key it has seen).
 * - `unkeyed`: none of these; after an unknown outcome only a lookup or a person can tell.
 */
export type ToolEffect = 'read-only' | 'idempotent' | 'keyed' | 'unkeyed';

export const TOOL_EFFECTS: readonly ToolEffect[] = ['read-only', 'idempotent', 'keyed', 'unkeyed'];

/** The ladder's view of an effect. */
export function effectFlags(effect: ToolEffect): { readOnly: boolean; idempotent: boolean; keyed: boolean } {
  return { readOnly: effect === 'read-only', idempotent: effect === 'idempotent', keyed: effect === 'keyed' };
}
