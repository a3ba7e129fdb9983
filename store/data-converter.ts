// A worker's or a client's data converter, from the environment: the payload codec and the payload store.
import type { ExternalStorage, PayloadCodec } from '@temporalio/common';
import { codecFromEnv, sealedFailuresPath } from '../common/payload-codec';
import { externalStorageFromEnv } from './external-storage';

/**
 * The data converter for a worker or a client: when a key is set, the codec, and the failure
 * converter that moves a failure's message and stack trace into a payload the codec seals (else they
 * stay plain text in history); when `AGENT_PAYLOAD_DIR` is set, the payload store (External Storage
 * on the local driver) that keeps large payloads and the conversation out of history. With neither,
 * the SDK's defaults.
 */
export function dataConverterFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): { payloadCodecs?: PayloadCodec[]; failureConverterPath?: string; externalStorage?: ExternalStorage } | undefined {
  const codec = codecFromEnv(env);
  const storage = externalStorageFromEnv(env);
  if (!codec && !storage) return undefined;
  return {
    ...(codec ? { payloadCodecs: [codec], failureConverterPath: sealedFailuresPath() } : {}),
    ...(storage ? { externalStorage: storage } : {}),
  };
}
