// The External Storage a worker and its clients share: which driver, and the size threshold.
import { ExternalStorage, StorageDriverClaim, type StorageDriver } from '@temporalio/common';
import { encodeReferencePayload } from '@temporalio/common/lib/internal-non-workflow';
import type { PayloadCodec } from '@temporalio/common';
import { LocalStorageDriver } from './local-driver';
import { DEFAULT_THRESHOLD_BYTES, PayloadStore } from './payload-store';
import { sealSecretFrom } from './reference-seal';

/** Thrown for a payload store setting that cannot be used. */
export class PayloadStoreConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PayloadStoreConfigError';
  }
}

/**
 * Temporal's External Storage on one driver: every payload of `thresholdBytes` or more (default
 * 256 KiB, the SDK's) goes to the driver and history keeps a reference; the loop's activities keep
 * tool outputs and the conversation's inline part of 16 KiB or more through the same driver.
 */
export function externalStorage(driver: StorageDriver, thresholdBytes = DEFAULT_THRESHOLD_BYTES): ExternalStorage {
  return new ExternalStorage({ drivers: [driver], payloadSizeThreshold: thresholdBytes });
}

/**
 * The payload store the environment names: `AGENT_PAYLOAD_DIR`, a folder for the local driver
 * (one machine: `npm run dev`, the tests, the sweep), and `AGENT_PAYLOAD_THRESHOLD_BYTES`, External
 * Storage's threshold (default 256 KiB). None when the folder is unset: payloads then go inline.
 */
export function externalStorageFromEnv(env: NodeJS.ProcessEnv = process.env): ExternalStorage | undefined {
  const dir = env.AGENT_PAYLOAD_DIR;
  if (!dir) return undefined;
  const threshold = env.AGENT_PAYLOAD_THRESHOLD_BYTES;
  const bytes = threshold === undefined || threshold === '' ? DEFAULT_THRESHOLD_BYTES : Number(threshold);
  if (!Number.isSafeInteger(bytes) || bytes < 1)
    throw new PayloadStoreConfigError(
      `AGENT_PAYLOAD_THRESHOLD_BYTES must be a whole number of bytes, at least 1, not ${JSON.stringify(threshold)}`,
    );
  return externalStorage(new LocalStorageDriver({ dir }), bytes);
}

/**
 * Checks that this install can write External Storage's references into history, before a worker
 * takes a task: the SDK encodes them with protobufjs types of `@temporalio/proto`, which fails ("type
 * must be a Type") when `@temporalio/common` loads a copy of protobufjs of its own, as npm installs it
 * when another package (gRPC's proto-loader) holds protobufjs 7 at the top of node_modules. A worker
 * would otherwise fail every workflow task whose payload passes the threshold, for ever.
 */
export function checkExternalStorage(): void {
  try {
    encodeReferencePayload({ driverName: 'check', claim: new StorageDriverClaim({ check: '1' }), sizeBytes: 1 });
  } catch (err) {
    throw new PayloadStoreConfigError(
      `Temporal's External Storage cannot write its references in this install (${(err as Error).message}): ` +
        '@temporalio/common and @temporalio/proto load different copies of protobufjs (see npm ls protobufjs); ' +
        "add protobufjs@^8 to your project's dependencies so that npm puts one copy at the top and they share it",
    );
  }
}

/**
 * The loop's payload store on a worker's External Storage, sealed by its codecs, its references
 * sealed under a secret every worker of the task queue shares: one derived from the key secret
 * (`AGENT_KEY_SECRET`) when the worker has one, else the one the local driver keeps in its folder.
 * A store on another driver (S3) with no key secret is refused: anyone who could start a run could
 * otherwise hand it a reference to another run's payloads.
 */
export function loopPayloadStore(
  storage: ExternalStorage,
  codecs: readonly PayloadCodec[] = [],
  keySecret?: string,
): PayloadStore {
  if (keySecret) return new PayloadStore(storage, codecs, sealSecretFrom(keySecret));
  const local = storage.drivers.find(
    (d): d is LocalStorageDriver => typeof (d as Partial<LocalStorageDriver>).sealSecret === 'function',
  );
  if (!local)
    throw new PayloadStoreConfigError(
      `the payload store's driver ${storage.drivers.map((d) => d.name).join(', ')} keeps no secret to seal the run's references with: ` +
        'give the workers a keySecret (AGENT_KEY_SECRET), the same on every worker of the task queue',
    );
  return new PayloadStore(storage, codecs, local.sealSecret());
}
