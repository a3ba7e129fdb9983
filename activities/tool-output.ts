// What a run keeps of a tool's output: cut past the tool's cap, and large ones in the payload store.
import type { ToolOutput } from '../workflows/types';
import { redactSecrets } from '../common/secrets';
import { utf8Bytes, type PayloadStore, type StoreScope } from '../store/payload-store';

/** The most of one output a run keeps unless the tool says otherwise: 1 MiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/** What happens to an output past its tool's cap: cut (the model is told), or kept whole in the store. */
export type OutputOverflow = 'cut' | 'store';
export const OUTPUT_OVERFLOWS: readonly OutputOverflow[] = ['cut', 'store'];

/** A tool's cap on its output, and what happens past it. */
export interface OutputLimit {
  maxOutputBytes: number;
  overflow: OutputOverflow;
}

/** The longest start of `text` of at most `maxBytes` UTF-8 bytes, never splitting a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of a character.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** A text cut to `maxBytes` with a line saying how much was left out and why, or itself when it fits. */
export function cutOutput(text: string, maxBytes: number, why = ''): string {
  const bytes = utf8Bytes(text);
  if (bytes <= maxBytes) return text;
  return (
    cutUtf8(text, maxBytes) + `\n[output cut: the tool returned ${bytes} bytes; the first ${maxBytes} are shown${why}]`
  );
}

/**
 * A tool's output as the run keeps it. The worker's secrets are taken out first, whatever its size,
 * so neither the store nor the model nor history sees one. Past the tool's cap it is cut, with a line
 * telling the model how much was left out, unless the tool asks for it whole and the worker has a
 * store. Then, with a store, an output at or over the store's threshold is stored (durably, before
 * the reference is returned) and the run keeps its reference, size and first characters.
 */
export async function keptOutput(
  output: string,
  limit: OutputLimit,
  store: PayloadStore | undefined,
  scope: StoreScope,
): Promise<ToolOutput> {
  const text = redactSecrets(output);
  const bytes = utf8Bytes(text);
  let kept = text;
  if (bytes > limit.maxOutputBytes && !(limit.overflow === 'store' && store)) {
    const why = limit.overflow === 'store' ? ' (this worker has no payload store to keep it whole)' : '';
    kept = cutOutput(text, limit.maxOutputBytes, why);
  }
  return store ? store.keep(kept, scope) : kept;
}
