// The seal on every reference the loop writes into history: only a worker holding the store's secret
// makes one, and it opens only in the chain of runs it was made for.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../common/canonical-json';

/**
 * The chain of runs a reference belongs to: the workflow id, and the run that began the chain
 * (`workflowInfo().firstExecutionRunId`, the same in every run a retry, a reset or a continue-as-new
 * makes of it, and new when someone starts the same workflow id afresh).
 */
export interface RunChain {
  workflowId: string;
  firstRunId: string;
}

/** The bytes a seal is made over: driver, claim and chain, each framed by its length so no two part the same way. */
function sealedBytes(ref: { driver: string; claim: Record<string, string> }, chain: RunChain): string {
  return [
    'crash-safe-agent stored reference v1',
    ref.driver,
    canonicalJson(ref.claim),
    chain.workflowId,
    chain.firstRunId,
  ]
    .map((part) => `${Buffer.byteLength(part, 'utf8')}:${part}`)
    .join('');
}

/** The seal of a reference for a chain: HMAC-SHA-256 under the store's secret, in hex. */
export function sealOf(
  secret: Uint8Array,
  ref: { driver: string; claim: Record<string, string> },
  chain: RunChain,
): string {
  return createHmac('sha256', secret).update(sealedBytes(ref, chain)).digest('hex');
}

/** Whether `seal` is the seal of `ref` for `chain` (compared in constant time). */
export function sealHolds(
  secret: Uint8Array,
  ref: { driver: string; claim: Record<string, string> },
  chain: RunChain,
  seal: unknown,
): boolean {
  if (typeof seal !== 'string' || !/^[0-9a-f]{64}$/.test(seal)) return false;
  return timingSafeEqual(Buffer.from(sealOf(secret, ref, chain), 'hex'), Buffer.from(seal, 'hex'));
}

/** The store's secret derived from the worker's key secret, apart from the keys derived under it. */
export function sealSecretFrom(keySecret: string): Uint8Array {
  return createHmac('sha256', keySecret).update('crash-safe-agent stored references').digest();
}
