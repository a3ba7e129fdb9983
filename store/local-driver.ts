// A storage driver for Temporal's External Storage that keeps payloads as files under one folder.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync, existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  StorageDriverClaim,
  type Payload,
  type StorageDriver,
  type StorageDriverRetrieveContext,
  type StorageDriverStoreContext,
} from '@temporalio/common';
import { temporal } from '@temporalio/proto';

const PayloadProto = temporal.api.common.v1.Payload;

/** The driver's name in every reference it writes into history, unless given another. */
export const LOCAL_DRIVER_NAME = 'local-files';

/** A claim's object: a folder named for the workflow, then the payload's SHA-256. */
const OBJECT = /^[A-Za-z0-9%._-]{1,400}\/[0-9a-f]{64}$/;

/** Thrown when a claim from history does not name an object of this driver, or the object is not what it claims. */
export class StoredPayloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoredPayloadError';
  }
}

/** Options of {@link LocalStorageDriver}. */
export interface LocalStorageDriverOptions {
  /** The folder the payloads live in; made if missing. */
  dir: string;
  /** The name written into references. Default `local-files`. */
  name?: string;
}

/**
 * Keeps payloads as files under one folder, for one machine: `npm run dev`, the tests and the sweep
 * (S3 through `@temporalio/external-storage-s3` where workers run on several hosts). Each payload is
 * stored once under its SHA-256 (storing the same bytes again writes nothing), in a folder named for
 * the workflow whose run stored it, so a run's objects can be listed and removed with it. A file is
 * written to a temporary name, flushed to disk and renamed, and the folder flushed, before its claim
 * is returned: a reference never enters history before what it names is durable. A process killed
 * before the rename leaves a temporary file, and one killed after it but before history has the
 * reference leaves an object nothing names (an orphan, counted by {@link orphanedObjects}).
 */
export class LocalStorageDriver implements StorageDriver {
  readonly name: string;
  readonly type = 'crash-safe-agent.local-files';
  readonly dir: string;

  constructor(options: LocalStorageDriverOptions) {
    this.dir = path.resolve(options.dir);
    this.name = options.name ?? LOCAL_DRIVER_NAME;
    mkdirSync(this.dir, { recursive: true });
  }

  async store(context: StorageDriverStoreContext, payloads: Payload[]): Promise<StorageDriverClaim[]> {
    const folder = folderFor(context);
    return payloads.map((payload) => {
      const bytes = PayloadProto.encode(payload).finish();
      const hash = createHash('sha256').update(bytes).digest('hex');
      const object = `${folder}/${hash}`;
      const file = path.join(this.dir, object);
      if (!existsSync(file)) writeDurably(file, bytes);
      return new StorageDriverClaim({ object, hashAlgorithm: 'sha256', hashValue: hash });
    });
  }

  async retrieve(_context: StorageDriverRetrieveContext, claims: StorageDriverClaim[]): Promise<Payload[]> {
    return claims.map((claim) => {
      const { object, hashValue } = claim.claimData;
      if (typeof object !== 'string' || !OBJECT.test(object) || object.split('/')[1] !== hashValue)
        throw new StoredPayloadError(
          `a reference names no object of the local payload store: ${JSON.stringify(object)}`,
        );
      let bytes: Buffer;
      try {
        bytes = readFileSync(path.join(this.dir, object));
      } catch (err) {
        throw new StoredPayloadError(
          `the stored payload ${object} is not in ${this.dir} (${(err as Error).message}): the run's payloads live where its workers stored them`,
        );
      }
      const actual = createHash('sha256').update(bytes).digest('hex');
      if (actual !== hashValue) throw new StoredPayloadError(`the stored payload ${object} was changed on disk`);
      return PayloadProto.decode(bytes) as Payload;
    });
  }

  /** Every object stored for a workflow id (their claims' `object` fields), and the bytes they hold. */
  async objectsOf(workflowId: string): Promise<Array<{ object: string; bytes: number }>> {
    const folder = encodeSegment(workflowId);
    let names: string[];
    try {
      names = await readdir(path.join(this.dir, folder));
    } catch {
      return [];
    }
    const found: Array<{ object: string; bytes: number }> = [];
    for (const name of names.filter((n) => /^[0-9a-f]{64}$/.test(n)).sort())
      found.push({ object: `${folder}/${name}`, bytes: (await stat(path.join(this.dir, folder, name))).size });
    return found;
  }
}

/** The folder of the workflow whose run (or activity) stores, `_` when none is known. */
function folderFor(context: StorageDriverStoreContext): string {
  const target = context.target;
  const id = target?.kind === 'workflow' ? target.id : undefined;
  return encodeSegment(id ?? '_');
}

/** A workflow id as one path segment of safe characters. */
function encodeSegment(id: string): string {
  const encoded = encodeURIComponent(id).replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return encoded === '.' || encoded === '..' ? encoded.replace(/\./g, '%2E') : encoded;
}

/** Writes a file so that it exists whole or not at all, and survives the machine losing power once this returns. */
function writeDurably(file: string, bytes: Uint8Array): void {
  const folder = path.dirname(file);
  mkdirSync(folder, { recursive: true });
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
  const dirFd = openSync(folder, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
