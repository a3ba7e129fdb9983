/**
 * `crash-safe-agent/store`: where long runs keep what must not grow history, for a worker and its clients.
 *
 * - `externalStorage(driver, thresholdBytes?)`: Temporal's External Storage on one driver, for the
 *   `dataConverter` of `createAgentWorker` and of every client (payloads of 256 KiB or more go to the
 *   driver; the loop keeps tool outputs and the conversation's turns of 16 KiB or more there too);
 * - `LocalStorageDriver`: the driver for one machine (files under a folder, written durably);
 *   for S3 use `S3StorageDriver` of `@temporalio/external-storage-s3`;
 * - `externalStorageFromEnv`: the local store `AGENT_PAYLOAD_DIR` names, as `npm run dev` sets it.
 */
export { externalStorage, externalStorageFromEnv, PayloadStoreConfigError } from '../store/external-storage';
export { LocalStorageDriver, StoredPayloadError, type LocalStorageDriverOptions } from '../store/local-driver';
export { DEFAULT_THRESHOLD_BYTES, TEXT_THRESHOLD_BYTES, NoPayloadStoreError } from '../store/payload-store';
