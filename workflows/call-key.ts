// The idempotency key of one call, computed in workflow code: byte for byte `common/key.ts`, without node:crypto.
import { sha256Hex } from './digest';

/**
 * The key of call `call` of the run or workflow `owner`: the SHA-256 over, for each, its length in
 * UTF-8 bytes, `:`, and itself; the first 32 hex digits. The same function as `key()` in
 * `common/key.ts`, which activities use, so a key made in a workflow and one made in an activity agree.
 */
export function callKey(owner: string, call: string): string {
  const encoder = new TextEncoder();
  const framed = [owner, call].map((part) => `${encoder.encode(part).length}:${part}`).join('');
  return sha256Hex(framed).slice(0, 32);
}
