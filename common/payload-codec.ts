// The payload codec that seals every payload with AES-256-GCM when TEMPORAL_PAYLOAD_KEY is set.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { commaList } from './cli';

/**
 * Encrypts every payload the worker and the clients send to Temporal (workflow inputs and results,
 * activity arguments and results, signals, queries, memos), so prompts, tool arguments and tool
 * results are stored encrypted in history. AES-256-GCM; each payload names the key that sealed it
 * (`encryption-key-id`), so a new key can take over while old payloads still open with theirs.
 * Search attributes are not payloads of ours: they stay readable, for the server to index.
 */

/** The `encoding` of a sealed payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata field naming the key that sealed a payload. */
export const KEY_ID_METADATA = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Thrown for a bad key setting or a payload sealed with a key this process does not have. */
export class PayloadKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PayloadKeyError';
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Reads a 256-bit key given as 64 hex digits or as base64. */
export function parseKey(text: string, name: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32)
    throw new PayloadKeyError(
      `${name} must be 32 bytes (64 hex digits or base64), got ${key.length}: e.g. openssl rand -hex 32`,
    );
  return key;
}

/** Seals payloads with the current key; opens those sealed with any key it has. */
export class AesGcmCodec implements PayloadCodec {
  /**
   * @param keys every key by its id: the current one and the old ones still needed to open old payloads
   * @param currentId the id of the key that seals new payloads
   */
  constructor(
    private readonly keys: ReadonlyMap<string, Buffer>,
    private readonly currentId: string,
  ) {
    if (!keys.has(currentId)) throw new PayloadKeyError(`no key with id ${currentId}`);
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const key = this.keys.get(this.currentId)!;
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { encoding: encoder.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: encoder.encode(this.currentId) },
        data: sealed,
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.encoding;
      if (!encoding || decoder.decode(encoding) !== ENCRYPTED_ENCODING) return payload; // not ours: left as it is
      const idBytes = payload.metadata?.[KEY_ID_METADATA];
      const id = idBytes ? decoder.decode(idBytes) : '';
      const key = this.keys.get(id);
      if (!key)
        throw new PayloadKeyError(
          `a payload was sealed with key ${JSON.stringify(id)}, which this process does not have (TEMPORAL_PAYLOAD_OLD_KEYS)`,
        );
      const data = Buffer.from(payload.data ?? new Uint8Array());
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return temporal.api.common.v1.Payload.decode(plain) as Payload;
    });
  }
}

/**
 * The codec the environment asks for, or `null` when `TEMPORAL_PAYLOAD_KEY` is unset (payloads then
 * go in plain JSON, as by default). `TEMPORAL_PAYLOAD_KEY_ID` names the key (default `default`);
 * `TEMPORAL_PAYLOAD_OLD_KEYS` (`id:key,id:key`) keeps earlier keys for payloads they sealed.
 */
export function codecFromEnv(env: NodeJS.ProcessEnv = process.env): AesGcmCodec | null {
  if (!env.TEMPORAL_PAYLOAD_KEY) return null;
  const currentId = env.TEMPORAL_PAYLOAD_KEY_ID || 'default';
  const keys = new Map<string, Buffer>();
  for (const entry of commaList(env.TEMPORAL_PAYLOAD_OLD_KEYS)) {
    const at = entry.indexOf(':');
    if (at <= 0) throw new PayloadKeyError('TEMPORAL_PAYLOAD_OLD_KEYS must be a list of id:key');
    keys.set(entry.slice(0, at), parseKey(entry.slice(at + 1), `the old key ${entry.slice(0, at)}`));
  }
  keys.set(currentId, parseKey(env.TEMPORAL_PAYLOAD_KEY, 'TEMPORAL_PAYLOAD_KEY'));
  return new AesGcmCodec(keys, currentId);
}

/**
 * The module whose `failureConverter` seals failures' messages and stacks (`failure-converter.ts`).
 * Resolved when asked, not on import, so that a worker bundled into one file that never seals
 * anything (the sweep's) does not look for it.
 */
export function sealedFailuresPath(): string {
  return require.resolve('./failure-converter');
}
