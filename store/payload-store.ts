// The payload store as the loop's activities use it: texts and records put where External Storage puts payloads.
import {
  defaultPayloadConverter,
  StorageDriverClaim,
  type ExternalStorage,
  type PayloadCodec,
  type StorageDriverWorkflowInfo,
} from '@temporalio/common';
import type { StoredRef, StoredText, ToolOutput } from '../workflows/types';

/**
 * The size at and over which the loop keeps a text (a tool's output, the conversation's inline part)
 * in the store: 16 KiB, or the External Storage threshold when that is lower.
 */
export const TEXT_THRESHOLD_BYTES = 16 * 1024;
/** External Storage's threshold for any other payload unless the worker says otherwise: the SDK's default, 256 KiB. */
export const DEFAULT_THRESHOLD_BYTES = 256 * 1024;
/** How many characters of a stored text the run keeps beside its reference, for people. */
export const PREVIEW_CHARS = 160;

/** Thrown when a run names a stored payload and the worker has no store to read it from. */
export class NoPayloadStoreError extends Error {
  constructor(what: string) {
    super(
      `${what} is kept in the payload store, and this worker has none: give every worker of the task queue ` +
        'the same store (createAgentWorker({ dataConverter: { externalStorage } }), or AGENT_PAYLOAD_DIR)',
    );
    this.name = 'NoPayloadStoreError';
  }
}

/** UTF-8 bytes of a text. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Where the loop keeps what must not grow history: a tool's large output, and the conversation's
 * turns, from 16 KiB on. It writes through the driver of the worker's External Storage (which
 * offloads any other payload over its own threshold, 256 KiB by default), and seals what it writes
 * with the worker's payload codecs first, so an encrypted history's store is encrypted too.
 */
export class PayloadStore {
  /** Texts of this many UTF-8 bytes or more are stored; smaller ones stay in history. */
  readonly thresholdBytes: number;

  constructor(
    private readonly storage: ExternalStorage,
    private readonly codecs: readonly PayloadCodec[] = [],
  ) {
    // The SDK's threshold of 0 means "every payload"; a text store needs some floor to be useful.
    this.thresholdBytes = Math.max(1, Math.min(TEXT_THRESHOLD_BYTES, storage.payloadSizeThreshold));
  }

  /** Stores a JSON value durably and returns its reference. */
  async put(value: unknown, target: StorageDriverWorkflowInfo): Promise<StoredRef> {
    let payloads = [defaultPayloadConverter.toPayload(value)];
    for (const codec of this.codecs) payloads = await codec.encode(payloads);
    const payload = payloads[0]!;
    const driver = this.storage.driverSelector({ target }, payload) ?? this.storage.drivers[0]!;
    const [claim] = await driver.store({ target }, [payload]);
    return { driver: driver.name, claim: { ...claim!.claimData } };
  }

  /** The JSON value a reference names. */
  async get<T = unknown>(ref: StoredRef): Promise<T> {
    const driver = this.storage.getDriver(ref.driver);
    if (!driver)
      throw new Error(`a stored payload names the driver ${JSON.stringify(ref.driver)}, which this worker has not`);
    let payloads = await driver.retrieve({}, [new StorageDriverClaim(ref.claim)]);
    for (const codec of [...this.codecs].reverse()) payloads = await codec.decode(payloads);
    return defaultPayloadConverter.fromPayload<T>(payloads[0]!);
  }

  /** A text as the run keeps it: itself under the threshold, else stored, with its size and first characters. */
  async keep(text: string, target: StorageDriverWorkflowInfo): Promise<ToolOutput> {
    const bytes = utf8Bytes(text);
    if (bytes < this.thresholdBytes) return text;
    return { stored: await this.put(text, target), bytes, preview: text.slice(0, PREVIEW_CHARS) };
  }

  /** The text a kept output stands for. */
  async text(output: ToolOutput): Promise<string> {
    if (typeof output === 'string') return output;
    const text = await this.get<unknown>(output.stored);
    if (typeof text !== 'string') throw new Error('a stored text is not a string');
    return text;
  }
}

/** Whether a kept output is a reference to the store. */
export function isStored(output: ToolOutput | null | undefined): output is StoredText {
  return typeof output === 'object' && output !== null && 'stored' in output;
}

/** The text of a kept output, on a worker that may have no store: a stored one needs one. */
export async function textOf(output: ToolOutput, store: PayloadStore | undefined, what: string): Promise<string> {
  if (typeof output === 'string') return output;
  if (!store) throw new NoPayloadStoreError(what);
  return store.text(output);
}
