// A storage driver for Temporal's External Storage that keeps payloads as files under one folder.
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
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

/** The file under the driver's folder that holds the secret its references are sealed with. */
export const SEAL_SECRET_FILE = '.reference-secret';

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
      const file = this.fileOf(object, hashValue);
      let bytes: Buffer;
      try {
        bytes = readFileSync(file);
      } catch (err) {
        throw new StoredPayloadError(
          `the stored payload ${object} is not in ${this.dir} (${(err as Error).message}): the run's payloads live where its workers stored them`,
        );
      }
      const actual = createHash('sha256').update(bytes).digest('hex');
      if (actual !== hashValue)
        throw new StoredPayloadError(`the stored payload ${object} was changed on disk (its SHA-256 is not its name)`);
      return PayloadProto.decode(bytes) as Payload;
    });
  }

  /**
   * The file a claim names, once it is shown to lie inside the driver's folder: a folder named for a
   * workflow, then the SHA-256 the claim gives; no `.` or `..`, no absolute path, and no symbolic link
   * anywhere on the way (a link planted in the folder could point anywhere).
   */
  private fileOf(object: unknown, hashValue: unknown): string {
    const refuse = (why: string): never => {
      throw new StoredPayloadError(
        `a reference names no object of the local payload store: ${JSON.stringify(object)} (${why})`,
      );
    };
    if (typeof object !== 'string' || !OBJECT.test(object)) return refuse('not a folder and a SHA-256');
    const [folder, name] = object.split('/') as [string, string];
    if (folder === '.' || folder === '..') return refuse('a folder outside the store');
    if (name !== hashValue) return refuse('its name is not the hash it claims');
    const file = path.join(this.dir, folder, name);
    for (const step of [path.join(this.dir, folder), file]) {
      let link = false;
      try {
        link = lstatSync(step).isSymbolicLink();
      } catch {
        return file; // missing: reading it says so
      }
      if (link) refuse('a symbolic link');
    }
    const inside = path.relative(realpathSync(this.dir), realpathSync(file));
    if (inside.startsWith('..') || path.isAbsolute(inside)) refuse('a file outside the store');
    return file;
  }

  /**
   * The secret this store's references are sealed with when the workers give none of their own: 32
   * random bytes in {@link SEAL_SECRET_FILE} under the folder, made by the first worker that asks
   * (every worker on the folder reads the same). Only those who can read the folder can mint a
   * reference, and they can read every payload anyway.
   */
  sealSecret(): Uint8Array {
    const file = path.join(this.dir, SEAL_SECRET_FILE);
    if (!existsSync(file)) {
      const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      writeDurably(temp, Buffer.from(randomBytes(32).toString('hex')), 0o600);
      try {
        linkSync(temp, file); // fails if another worker made it first: theirs is kept
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      } finally {
        rmSync(temp, { force: true });
      }
    }
    const text = readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/.test(text))
      throw new StoredPayloadError(
        `${file} does not hold a store secret (64 hex digits): remove it to have a new one made`,
      );
    return Buffer.from(text, 'hex');
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
function writeDurably(file: string, bytes: Uint8Array, mode = 0o644): void {
  const folder = path.dirname(file);
  mkdirSync(folder, { recursive: true });
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temp, 'w', mode);
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
