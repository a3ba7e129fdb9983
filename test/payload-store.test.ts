// The payload store without a server: the local driver's objects (durable, once per content, checked
// when read, named only by claims it made) and what the loop keeps of a text or an output.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter, StorageDriverClaim } from '@temporalio/common';
import { LocalStorageDriver, StoredPayloadError } from '../store/local-driver';
import {
  externalStorage,
  externalStorageFromEnv,
  loopPayloadStore,
  PayloadStoreConfigError,
} from '../store/external-storage';
import { PayloadStore } from '../store/payload-store';
import { cutUtf8, keptOutput } from '../activities/tool-output';
import { AesGcmCodec } from '../common/payload-codec';
import { createHash } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { registerSecrets } from '../common/secrets';
import type { StoredText } from '../workflows/types';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'store-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const target = {
  kind: 'workflow' as const,
  namespace: 'default',
  id: 'agent/run 1',
  runId: 'r1',
  type: 'agentWorkflow',
};
const chain = { workflowId: 'agent/run 1', firstRunId: 'r1' };
const scope = { target, chain };
/** A store on the local driver in `dir`, sealed with the driver's own secret. */
const storeIn = (threshold: number, codecs: AesGcmCodec[] = []) =>
  loopPayloadStore(externalStorage(new LocalStorageDriver({ dir }), threshold), codecs);

describe('the local driver', () => {
  test("stores a payload under the workflow's folder by its SHA-256, once however often it is stored, and reads it back", async () => {
    const driver = new LocalStorageDriver({ dir });
    const payload = defaultPayloadConverter.toPayload('x'.repeat(50_000));
    const [a] = await driver.store({ target }, [payload]);
    const [b] = await driver.store({ target }, [payload]);
    expect(a!.claimData).toEqual(b!.claimData);
    expect(a!.claimData.object).toMatch(/^agent%2Frun%201\/[0-9a-f]{64}$/);
    expect(readdirSync(path.join(dir, 'agent%2Frun%201'))).toHaveLength(1);
    const [back] = await new LocalStorageDriver({ dir }).retrieve({}, [a!]);
    expect(defaultPayloadConverter.fromPayload(back!)).toBe('x'.repeat(50_000));
    expect(await driver.objectsOf('agent/run 1')).toEqual([{ object: a!.claimData.object, bytes: expect.any(Number) }]);
  });

  test('refuses an object changed on disk, a claim naming a path outside its folder, and a missing object, each with a reason', async () => {
    const driver = new LocalStorageDriver({ dir });
    const [claim] = await driver.store({ target }, [defaultPayloadConverter.toPayload('hello')]);
    writeFileSync(path.join(dir, claim!.claimData.object!), 'changed');
    await expect(driver.retrieve({}, [claim!])).rejects.toThrow(/was changed on disk/);
    const outside = new StorageDriverClaim({ object: `../etc/${'0'.repeat(64)}`, hashValue: '0'.repeat(64) });
    await expect(driver.retrieve({}, [outside])).rejects.toThrow(StoredPayloadError);
    // A planted, readable file in the store's parent folder, named for its hash, is not read through `..`.
    const bytes = Buffer.from(temporalPayloadBytes('planted'));
    const hash = createHash('sha256').update(bytes).digest('hex');
    const store = path.join(dir, 'store');
    const inner = new LocalStorageDriver({ dir: store });
    writeFileSync(path.join(dir, hash), bytes);
    const up = new StorageDriverClaim({ object: `../${hash}`, hashValue: hash });
    await expect(inner.retrieve({}, [up])).rejects.toThrow(/a folder outside the store/);
    // Nor through a symbolic link planted in the store (to a folder, or to a file, outside it).
    mkdirSync(path.join(store, 'real'));
    symlinkSync(dir, path.join(store, 'linked'));
    await expect(
      inner.retrieve({}, [new StorageDriverClaim({ object: `linked/${hash}`, hashValue: hash })]),
    ).rejects.toThrow(/a symbolic link/);
    symlinkSync(path.join(dir, hash), path.join(store, 'real', hash));
    await expect(
      inner.retrieve({}, [new StorageDriverClaim({ object: `real/${hash}`, hashValue: hash })]),
    ).rejects.toThrow(/a symbolic link/);
    const missing = new StorageDriverClaim({ object: `x/${'1'.repeat(64)}`, hashValue: '1'.repeat(64) });
    await expect(driver.retrieve({}, [missing])).rejects.toThrow(
      /is not in .*: the run's payloads live where its workers stored them/,
    );
  });
});

describe('what the loop keeps', () => {
  test('a text under the threshold stays itself; one at it is stored, with its size and first characters, and read back', async () => {
    const store = storeIn(100);
    expect(await store.keep('short', scope)).toBe('short');
    const long = 'é'.repeat(60); // 120 bytes
    const kept = await store.keep(long, scope);
    expect(kept).toMatchObject({
      bytes: 120,
      preview: long,
      stored: { driver: 'local-files', seal: expect.any(String) },
    });
    expect(await store.text(kept, chain)).toBe(long);
  });

  test("with the worker's codec, what the store holds is sealed: the text is not on disk", async () => {
    const codec = new AesGcmCodec(new Map([['k', Buffer.alloc(32, 7)]]), 'k');
    const store = storeIn(10, [codec]);
    const secret = 'the customer said: ' + 'confidential '.repeat(10);
    const kept = await store.keep(secret, scope);
    const folder = readdirSync(dir).find((f) => !f.startsWith('.'))!;
    const raw = readdirSync(path.join(dir, folder)).map((f) => readFileSync(path.join(dir, folder, f)));
    expect(raw.some((b) => b.includes('confidential'))).toBe(false);
    expect(await store.text(kept, chain)).toBe(secret);
  });

  test("an output past the tool's cap is cut on a character boundary, and the model told; with overflow 'store' and a store it is kept whole", async () => {
    expect(cutUtf8('ééé', 5)).toBe('éé');
    const text = 'ü'.repeat(1000); // 2000 bytes
    const cut = await keptOutput(text, { maxOutputBytes: 101, overflow: 'cut' }, undefined, scope);
    expect(cut).toBe(`${'ü'.repeat(50)}\n[output cut: the tool returned 2000 bytes; the first 101 are shown]`);
    const noStore = await keptOutput(text, { maxOutputBytes: 100, overflow: 'store' }, undefined, scope);
    expect(noStore).toMatch(/\(this worker has no payload store to keep it whole\)\]$/);
    const store = storeIn(1000);
    const whole = await keptOutput(text, { maxOutputBytes: 100, overflow: 'store' }, store, scope);
    expect(typeof whole === 'object' && whole.bytes).toBe(2000);
    expect(await store.text(whole, chain)).toBe(text);
  });

  test('AGENT_PAYLOAD_DIR names the store; a threshold that is not a whole number of bytes is refused with the variable named', () => {
    expect(externalStorageFromEnv({})).toBeUndefined();
    expect(externalStorageFromEnv({ AGENT_PAYLOAD_DIR: dir })?.payloadSizeThreshold).toBe(256 * 1024);
    expect(
      externalStorageFromEnv({ AGENT_PAYLOAD_DIR: dir, AGENT_PAYLOAD_THRESHOLD_BYTES: '4096' })?.payloadSizeThreshold,
    ).toBe(4096);
    expect(() => externalStorageFromEnv({ AGENT_PAYLOAD_DIR: dir, AGENT_PAYLOAD_THRESHOLD_BYTES: '1.5k' })).toThrow(
      PayloadStoreConfigError,
    );
  });
});

describe('who may read what the store keeps', () => {
  test('a reference opens only in the chain it was sealed for: not another workflow id, not the same id started afresh, not without its seal, not with one forged', async () => {
    const store = storeIn(10);
    const kept = (await store.keep('run A said: '.padEnd(200, 'a'), scope)) as StoredText;
    expect(await store.text(kept, chain)).toMatch(/^run A said/);
    const refused = /is refused: its seal is not this store's for this run's chain/;
    await expect(store.text(kept, { workflowId: 'run B', firstRunId: 'r9' })).rejects.toThrow(refused);
    await expect(store.text(kept, { workflowId: chain.workflowId, firstRunId: 'r2' })).rejects.toThrow(refused);
    const { seal: _seal, ...unsealed } = kept.stored;
    await expect(store.text({ ...kept, stored: unsealed }, chain)).rejects.toThrow(refused);
    await expect(store.text({ ...kept, stored: { ...kept.stored, seal: 'f'.repeat(64) } }, chain)).rejects.toThrow(
      refused,
    );
    // The same object under another name, with the seal of the real one, is refused too: the seal covers the claim.
    const renamed = { ...kept.stored, claim: { ...kept.stored.claim, object: `x/${kept.stored.claim.hashValue}` } };
    await expect(store.text({ ...kept, stored: renamed }, chain)).rejects.toThrow(refused);
    // A store with another secret (another folder's, or a key secret) does not open it.
    const other = loopPayloadStore(externalStorage(new LocalStorageDriver({ dir }), 10), [], 'another-secret-123');
    await expect(other.text(kept, chain)).rejects.toThrow(refused);
    // Anything else where a kept output belongs is refused, not read.
    await expect(store.text({ stored: 'x' } as unknown as StoredText, chain)).rejects.toThrow(/not an object/);
    await expect(store.text({ bytes: 1 } as unknown as StoredText, chain)).rejects.toThrow(/neither a text nor/);
  });

  test("every worker on a folder shares the folder's secret (made once, kept 0600); a store on a driver without one needs the key secret", async () => {
    const a = storeIn(10);
    const kept = await a.keep('x'.repeat(100), scope);
    expect(await storeIn(10).text(kept, chain)).toBe('x'.repeat(100));
    const { mode } = statSync(path.join(dir, '.reference-secret'));
    expect(mode & 0o777).toBe(0o600);
    const s3Like = { name: 's3', type: 'x', store: async () => [], retrieve: async () => [] };
    expect(() => loopPayloadStore(externalStorage(s3Like))).toThrow(
      /give the workers a keySecret \(AGENT_KEY_SECRET\)/,
    );
    expect(loopPayloadStore(externalStorage(s3Like), [], 'a-key-secret')).toBeInstanceOf(PayloadStore);
  });

  test("with the worker's codec on, a payload the codec did not seal is refused, not read as it is", async () => {
    const codec = new AesGcmCodec(new Map([['k', Buffer.alloc(32, 7)]]), 'k');
    const plain = storeIn(10);
    const sealed = storeIn(10, [codec]);
    const kept = await plain.keep('written without the codec '.repeat(10), scope);
    await expect(sealed.text(kept, chain)).rejects.toThrow(/is not sealed by this worker's codec/);
  });

  test("the worker's secrets are taken out before anything is kept, whatever the size: not in the store, not in what is read back", async () => {
    const secret = 'sk-store-test-4242424242';
    registerSecrets(secret);
    const store = storeIn(100);
    const output = `token=${secret} `.padEnd(20_000, '.');
    const kept = (await keptOutput(
      output,
      { maxOutputBytes: 1024 * 1024, overflow: 'cut' },
      store,
      scope,
    )) as StoredText;
    expect(kept.preview).toContain('[redacted]');
    const text = await store.text(kept, chain);
    expect(text).not.toContain(secret);
    expect(text).toMatch(/^token=\[redacted\] /);
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    for (const f of files) expect(readFileSync(path.join(f.parentPath, f.name)).includes(secret)).toBe(false);
    // And cut outputs too: the secret is gone before the cut, so none is left half-shown at the edge.
    const cut = await keptOutput(
      `${'x'.repeat(95)}${secret}`,
      { maxOutputBytes: 100, overflow: 'cut' },
      undefined,
      scope,
    );
    expect(cut).not.toContain(secret.slice(0, 5));
  });
});

/** The bytes the local driver stores for a string payload. */
function temporalPayloadBytes(value: string): Uint8Array {
  return temporal.api.common.v1.Payload.encode(defaultPayloadConverter.toPayload(value)).finish();
}
