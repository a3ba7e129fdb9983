// The payload store as the loop's activities use it: texts and records put where External Storage puts payloads.
import {
  defaultPayloadConverter,
  StorageDriverClaim,
  type ExternalStorage,
  type PayloadCodec,
  type StorageDriverWorkflowInfo,
} from '@temporalio/common';
import type { StoredRef, StoredText, ToolOutput } from '../workflows/types';
import { redactDeep } from '../common/secrets';
import { StoredPayloadError } from './local-driver';
import { sealHolds, sealOf, type RunChain } from './reference-seal';

/** Where the loop keeps a payload: the run whose activity stores it, and the chain of runs that may read it back. */
export interface StoreScope {
  /** The run whose activity stores (External Storage's target): the store keeps a workflow's payloads together. */
  target: StorageDriverWorkflowInfo;
  /** The chain of runs the reference is sealed for: no other run opens it. */
  chain: RunChain;
}

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
 *
 * Every reference it hands out carries a seal (HMAC-SHA-256 under the store's secret over the
 * driver, the claim and the chain of runs it was made for), and it reads only references whose seal
 * holds for the chain asking: a reference that came from anywhere else (a start's input, a model's
 * reply, a receiver's answer, another run's history) is refused before anything is read, however
 * well its maker knew the object's name and hash. What it keeps has the worker's secrets taken out
 * first, whatever its size.
 */
export class PayloadStore {
  /** Texts of this many UTF-8 bytes or more are stored; smaller ones stay in history. */
  readonly thresholdBytes: number;

  constructor(
    private readonly storage: ExternalStorage,
    private readonly codecs: readonly PayloadCodec[],
    private readonly secret: Uint8Array,
  ) {
    // The SDK's threshold of 0 means "every payload"; a text store needs some floor to be useful.
    this.thresholdBytes = Math.max(1, Math.min(TEXT_THRESHOLD_BYTES, storage.payloadSizeThreshold));
    if (secret.length < 16)
      throw new Error('a payload store needs a secret of at least 16 bytes to seal its references');
  }

  /** Stores a JSON value durably, the worker's secrets taken out, and returns its reference, sealed for `scope.chain`. */
  async put(value: unknown, scope: StoreScope): Promise<StoredRef> {
    let payloads = [defaultPayloadConverter.toPayload(redactDeep(value))];
    for (const codec of this.codecs) payloads = await codec.encode(payloads);
    const payload = payloads[0]!;
    const target = scope.target;
    const driver = this.storage.driverSelector({ target }, payload) ?? this.storage.drivers[0]!;
    const [claim] = await driver.store({ target }, [payload]);
    const ref = { driver: driver.name, claim: { ...claim!.claimData } };
    return { ...ref, seal: sealOf(this.secret, ref, scope.chain) };
  }

  /**
   * The JSON value a reference names, if its seal holds for `chain`; else a {@link StoredPayloadError}
   * before anything is read. With codecs, a payload they did not seal is refused too.
   */
  async get<T = unknown>(ref: StoredRef, chain: RunChain): Promise<T> {
    this.check(ref, chain);
    const driver = this.storage.getDriver(ref.driver);
    if (!driver)
      throw new StoredPayloadError(
        `a stored payload names the driver ${JSON.stringify(ref.driver)}, which this worker has not`,
      );
    const stored = await driver.retrieve({}, [new StorageDriverClaim(ref.claim)]);
    let payloads = stored;
    for (const codec of [...this.codecs].reverse()) payloads = await codec.decode(payloads);
    if (this.codecs.length > 0 && payloads[0] === stored[0])
      throw new StoredPayloadError(
        `the stored payload ${JSON.stringify(ref.claim.object ?? ref.claim)} is not sealed by this worker's codec, as everything it stores is; it is not read`,
      );
    return defaultPayloadConverter.fromPayload<T>(payloads[0]!);
  }

  /** Throws a {@link StoredPayloadError}, naming why, unless `ref` is a reference this store sealed for `chain`. */
  check(ref: StoredRef, chain: RunChain): void {
    const problem = refProblem(ref);
    if (problem) throw new StoredPayloadError(`a stored-payload reference is refused: ${problem}; nothing was read`);
    if (!sealHolds(this.secret, ref, chain, ref.seal))
      throw new StoredPayloadError(
        `a stored-payload reference to ${JSON.stringify(ref.claim.object ?? ref.claim)} is refused: its seal is not this store's for this run's chain ` +
          '(a reference this run did not store, or one stored by a worker with another store secret); nothing was read',
      );
  }

  /** A text as the run keeps it: itself under the threshold, else stored, with its size and first characters. */
  async keep(text: string, scope: StoreScope): Promise<ToolOutput> {
    const clean = redactDeep(text);
    const bytes = utf8Bytes(clean);
    if (bytes < this.thresholdBytes) return clean;
    return { stored: await this.put(clean, scope), bytes, preview: clean.slice(0, PREVIEW_CHARS) };
  }

  /** The text a kept output stands for, read for `chain`. */
  async text(output: ToolOutput, chain: RunChain): Promise<string> {
    if (typeof output === 'string') return output;
    if (!isStored(output))
      throw new StoredPayloadError('a kept output is neither a text nor a stored-payload reference');
    const text = await this.get<unknown>(output.stored, chain);
    if (typeof text !== 'string')
      throw new StoredPayloadError(`the stored payload ${JSON.stringify(output.stored.claim.object)} is not a text`);
    return text;
  }
}

/** Why a value is not a reference's shape (a driver's name, a claim of strings, a seal), or `null`. */
export function refProblem(ref: unknown): string | null {
  if (typeof ref !== 'object' || ref === null || Array.isArray(ref)) return 'it is not an object';
  const { driver, claim } = ref as Record<string, unknown>;
  if (typeof driver !== 'string') return 'it names no driver';
  if (typeof claim !== 'object' || claim === null || Array.isArray(claim)) return 'it has no claim';
  if (Object.values(claim).some((v) => typeof v !== 'string')) return 'its claim is not all strings';
  return null;
}

/** Whether a kept output is a reference to the store. */
export function isStored(output: ToolOutput | null | undefined): output is StoredText {
  return typeof output === 'object' && output !== null && 'stored' in output;
}

/** The text of a kept output, on a worker that may have no store: a stored one needs one. */
export async function textOf(
  output: ToolOutput,
  store: PayloadStore | undefined,
  what: string,
  chain: RunChain,
): Promise<string> {
  if (typeof output === 'string') return output;
  if (!store) throw new NoPayloadStoreError(what);
  return store.text(output, chain);
}
