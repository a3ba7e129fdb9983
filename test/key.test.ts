// Computed by the design document's Go `Key` (go1.26), so a change to the byte layout fails here.
import { execFileSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { key } from '../common/key';

const goVectors: Array<[string, string, string]> = [
  ['a:b', 'c', '1c2de18a3ef3c0cdcce3495f7903aff9'],
  ['a', 'b:c', '804536b63b049b4dcd2bcfedd2982e9b'],
  ['', '', '390feabc786e369e55b904251d643b52'],
  ['run-1', 'call_1', 'ba09e991b6ea3f35e4d62b6164c4a689'],
  ['7f3c9a2e-0b1d-4c55-9e61-2f8a4d3b1c00', 'call_create_1', '526a68a791b3b414659038a20948f58a'],
  ['ünïcödé', '呼び出し', '5a61982a0bfe5ddbb532ce4592a7791b'],
  ['run', '🦀', 'd203cbd15b0b3aa52252587f805dea20'],
  ['1', '1:1', 'cfcf70d64fe88ef29390b211f5bdf5c3'],
  ['11', ':1', '52cbd52be5317e96878b3955d5fc84e6'],
];

describe('key(run, call)', () => {
  test.each(goVectors)('key(%j, %j) equals the Go reference %s', (run, call, expected) => {
    expect(key(run, call)).toBe(expected);
  });

  test('the length prefix keeps ("a:b","c") and ("a","b:c") apart', () => {
    expect(key('a:b', 'c')).not.toBe(key('a', 'b:c'));
  });

  test('non-ASCII ids are measured in UTF-8 bytes, not UTF-16 code units', () => {
    // A prefix taken from String.length ("ü" is one UTF-16 unit, two UTF-8 bytes) gives another hash.
    const byLength = (run: string, call: string) => {
      const h = createHash('sha256');
      for (const s of [run, call]) h.update(`${s.length}:${s}`, 'utf8');
      return h.digest().subarray(0, 16).toString('hex');
    };
    expect(byLength('ünïcödé', '呼び出し')).not.toBe('5a61982a0bfe5ddbb532ce4592a7791b');
    expect(key('ünïcödé', '呼び出し')).toBe('5a61982a0bfe5ddbb532ce4592a7791b');
    // For ASCII the two agree, which is why the bug would hide in English-only tests.
    expect(byLength('run-1', 'call_1')).toBe(key('run-1', 'call_1'));
  });

  test('npm run key prints the key, and rejects a wrong number of arguments', () => {
    const out = execFileSync('npx', ['tsx', 'clients/key.ts', 'run-1', 'call_1'], { encoding: 'utf8' });
    expect(out.trim()).toBe('ba09e991b6ea3f35e4d62b6164c4a689');
    expect(() => execFileSync('npx', ['tsx', 'clients/key.ts', 'only-one'], { stdio: 'pipe' })).toThrow(/usage/);
  });
});

describe('key(run, call, secret): a key a reader of history cannot compute', () => {
  test('is HMAC-SHA-256 under the secret over the same framed bytes, and differs from the plain key', () => {
    const expected = createHmac('sha256', 's3cret').update('5:run-16:call_1').digest().subarray(0, 16).toString('hex');
    expect(key('run-1', 'call_1', 's3cret')).toBe(expected);
    expect(key('run-1', 'call_1', 's3cret')).not.toBe(key('run-1', 'call_1'));
    expect(key('run-1', 'call_1', 'other')).not.toBe(key('run-1', 'call_1', 's3cret'));
    // No secret (or an empty one) is the plain key, byte for byte the Go reference.
    expect(key('run-1', 'call_1', '')).toBe('ba09e991b6ea3f35e4d62b6164c4a689');
  });
});

describe('one key function for workflow and activity code: plain TypeScript, byte for byte node:crypto', () => {
  /** The key as node:crypto makes it: SHA-256, or HMAC-SHA-256 under a secret, over the framed ids. */
  const reference = (run: string, call: string, secret?: string) => {
    const hash = secret ? createHmac('sha256', secret) : createHash('sha256');
    for (const part of [run, call]) hash.update(`${Buffer.byteLength(part, 'utf8')}:${part}`, 'utf8');
    return hash.digest().subarray(0, 16).toString('hex');
  };

  test('for any ids, and any secret (longer than a block too)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.option(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 100 }), { nil: undefined }),
        (run, call, secret) => {
          expect(key(run, call, secret)).toBe(reference(run, call, secret));
        },
      ),
      { numRuns: 500 },
    );
  });
});
