// The payload store without a server: the local driver's objects (durable, once per content, checked
// when read, named only by claims it made) and what the loop keeps of a text or an output.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter, StorageDriverClaim } from '@temporalio/common';
import { LocalStorageDriver, StoredPayloadError } from '../store/local-driver';
import { externalStorage, externalStorageFromEnv, PayloadStoreConfigError } from '../store/external-storage';
import { PayloadStore } from '../store/payload-store';
import { cutUtf8, keptOutput } from '../activities/tool-output';
import { AesGcmCodec } from '../common/payload-codec';

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
    const missing = new StorageDriverClaim({ object: `x/${'1'.repeat(64)}`, hashValue: '1'.repeat(64) });
    await expect(driver.retrieve({}, [missing])).rejects.toThrow(
      /is not in .*: the run's payloads live where its workers stored them/,
    );
  });
});

describe('what the loop keeps', () => {
  test('a text under the threshold stays itself; one at it is stored, with its size and first characters, and read back', async () => {
    const store = new PayloadStore(externalStorage(new LocalStorageDriver({ dir }), 100));
    expect(await store.keep('short', target)).toBe('short');
    const long = 'é'.repeat(60); // 120 bytes
    const kept = await store.keep(long, target);
    expect(kept).toMatchObject({ bytes: 120, preview: long, stored: { driver: 'local-files' } });
    expect(await store.text(kept)).toBe(long);
  });

  test("with the worker's codec, what the store holds is sealed: the text is not on disk", async () => {
    const codec = new AesGcmCodec(new Map([['k', Buffer.alloc(32, 7)]]), 'k');
    const store = new PayloadStore(externalStorage(new LocalStorageDriver({ dir }), 10), [codec]);
    const secret = 'the customer said: ' + 'confidential '.repeat(10);
    const kept = await store.keep(secret, target);
    const folder = readdirSync(dir)[0]!;
    const raw = readdirSync(path.join(dir, folder)).map((f) => readFileSync(path.join(dir, folder, f)));
    expect(raw.some((b) => b.includes('confidential'))).toBe(false);
    expect(await store.text(kept)).toBe(secret);
  });

  test("an output past the tool's cap is cut on a character boundary, and the model told; with overflow 'store' and a store it is kept whole", async () => {
    expect(cutUtf8('ééé', 5)).toBe('éé');
    const text = 'ü'.repeat(1000); // 2000 bytes
    const cut = await keptOutput(text, { maxOutputBytes: 101, overflow: 'cut' }, undefined, target);
    expect(cut).toBe(`${'ü'.repeat(50)}\n[output cut: the tool returned 2000 bytes; the first 101 are shown]`);
    const noStore = await keptOutput(text, { maxOutputBytes: 100, overflow: 'store' }, undefined, target);
    expect(noStore).toMatch(/\(this worker has no payload store to keep it whole\)\]$/);
    const store = new PayloadStore(externalStorage(new LocalStorageDriver({ dir }), 1000));
    const whole = await keptOutput(text, { maxOutputBytes: 100, overflow: 'store' }, store, target);
    expect(typeof whole === 'object' && whole.bytes).toBe(2000);
    expect(await store.text(whole)).toBe(text);
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
