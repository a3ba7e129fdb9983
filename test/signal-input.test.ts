// The signals' input read exactly, and the digest an approval binds to: pure logic, no server.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { canonicalJson } from '../common/canonical-json';
import { callDigest } from '../workflows/digest';
import { sha256Hex } from '../common/sha256';
import { readAnswer, readDecision, refusalLog, REFUSALS_KEPT, SIGNAL_FIELD_CAPS } from '../workflows/signal-input';

describe('readDecision', () => {
  test('takes an exact decision, ignores unknown fields, and names an unnamed sender', () => {
    expect(readDecision({ callId: 'c1', approved: true, extra: [1] })).toEqual({
      ok: { callId: 'c1', approved: true, by: 'someone' },
    });
    expect(readDecision({ callId: 'c1', approved: false, by: 'op', reason: 'no', digest: 'sha256:ab' })).toEqual({
      ok: { callId: 'c1', approved: false, by: 'op', reason: 'no', digest: 'sha256:ab' },
    });
  });

  test.each([
    [undefined, 'an approval must be a JSON object, not nothing'],
    [null, 'an approval must be a JSON object, not null'],
    [['c1', true], 'an approval must be a JSON object, not ["c1",true]'],
    [{ approved: true }, 'callId must be a non-empty string, not nothing'],
    [{ callId: '', approved: true }, 'callId must be a non-empty string, not ""'],
    [{ callId: 7, approved: true }, 'callId must be a non-empty string, not 7'],
    [{ callId: 'c1', approved: 'false' }, 'approved must be true or false, not "false"'],
    [{ callId: 'c1', approved: 1 }, 'approved must be true or false, not 1'],
    [{ callId: 'c1' }, 'approved must be true or false, not nothing'],
    [{ callId: 'c1', approved: true, by: 3 }, 'by must be a string, not 3'],
    [{ callId: 'c1', approved: false, reason: {} }, 'reason must be a string, not {}'],
    [{ callId: 'c1', approved: true, digest: null }, 'digest must be a string, not null'],
  ])('refuses %j: %s', (value, why) => {
    expect(readDecision(value)).toMatchObject({ refused: why });
    expect(Object.keys(readDecision(value))).not.toContain('ok');
  });

  test('a refusal says what it named and who sent it, as the list of refusals shows them', () => {
    expect(readDecision({ callId: 'c1', approved: 'yes', by: 'op' })).toEqual({
      refused: 'approved must be true or false, not "yes"',
      named: 'c1',
      by: 'op',
    });
    expect(readDecision({ callId: 7, approved: true })).toEqual({
      refused: 'callId must be a non-empty string, not 7',
      named: '7',
    });
    expect(readDecision(null)).toEqual({ refused: 'an approval must be a JSON object, not null', named: 'nothing' });
  });
});

describe('readAnswer', () => {
  test('takes an exact answer and ignores unknown fields', () => {
    expect(readAnswer({ questionId: 'c1#1', happened: false, x: 1 })).toEqual({
      ok: { questionId: 'c1#1', happened: false },
    });
    expect(readAnswer({ questionId: 'c1#1', happened: true, result: '{}', by: 'op' })).toEqual({
      ok: { questionId: 'c1#1', happened: true, result: '{}', by: 'op' },
    });
  });

  test.each([
    [undefined, 'an answer must be a JSON object, not nothing'],
    ['c1#1', 'an answer must be a JSON object, not "c1#1"'],
    [{ happened: true }, 'questionId must be a non-empty string, not nothing'],
    [{ questionId: 'c1#1', happened: 'false' }, 'happened must be true or false, not "false"'],
    [{ questionId: 'c1#1', happened: 0 }, 'happened must be true or false, not 0'],
    [{ questionId: 'c1#1', happened: true, result: { ok: true } }, 'result must be a string, not {"ok":true}'],
  ])('refuses %j: %s', (value, why) => {
    expect(readAnswer(value)).toMatchObject({ refused: why });
    expect(Object.keys(readAnswer(value))).not.toContain('ok');
  });

  test('a long value is cut in the reason', () => {
    const refused = readAnswer({ questionId: 'c1#1', happened: 'x'.repeat(500) }) as { refused: string };
    expect(refused.refused.length).toBeLessThan(120);
    expect(refused.refused).toMatch(/\.\.\.$/);
  });
});

describe('never throws, and takes only exact shapes', () => {
  /** Whether `v` is an object with `id` a string and `flag` a boolean: the only shape a reader may take. */
  const exact = (v: unknown, id: string, flag: string) =>
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    typeof (v as Record<string, unknown>)[id] === 'string' &&
    typeof (v as Record<string, unknown>)[flag] === 'boolean';

  test.each([
    ['readDecision', 'callId', 'approved', readDecision],
    ['readAnswer', 'questionId', 'happened', readAnswer],
  ] as const)('any value: %s takes it only with a %s string and a %s boolean', (_name, id, flag, read) => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const got = read(value);
        if ('ok' in got) expect(exact(value, id, flag)).toBe(true);
        else expect(typeof got.refused).toBe('string');
      }),
      { numRuns: 2000 },
    );
  });
});

describe('callDigest', () => {
  test('sha256Hex agrees with node:crypto on any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
      }),
      { numRuns: 300 },
    );
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  test('is the same for the same arguments in any key order, and differs for other arguments or another tool', () => {
    const a = callDigest('create_issue', { title: 't', labels: ['a'], repo: 'r' });
    expect(a).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(callDigest('create_issue', { repo: 'r', labels: ['a'], title: 't' })).toBe(a);
    expect(callDigest('create_issue', { repo: 'r', labels: ['a'], title: 'T' })).not.toBe(a);
    expect(callDigest('comment_on_issue', { repo: 'r', labels: ['a'], title: 't' })).not.toBe(a);
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] })).toBe('{"a":[{"d":2}],"b":1}');
  });
});

describe('every field a person sends has a cap, and what a run keeps of refusals is bounded', () => {
  test('capped, a field over its cap is refused with its size, and what the refusal keeps is cut', () => {
    const by = 'b'.repeat(1_900_000);
    const read = readDecision({ callId: 'call_create_1', approved: true, by }, { capped: true });
    expect(read).toEqual({
      refused: `by is 1900000 characters, over its cap of ${SIGNAL_FIELD_CAPS.by}`,
      named: 'call_create_1',
      by: expect.stringMatching(/^b{80}\.\.\. \(1899920 more characters\)$/),
    });
    expect(readDecision({ callId: 'c1', approved: false, reason: 'r'.repeat(2_001) }, { capped: true })).toMatchObject({
      refused: 'reason is 2001 characters, over its cap of 2000',
    });
    expect(
      readAnswer({ questionId: 'c1#1', happened: true, result: 'x'.repeat(16_385) }, { capped: true }),
    ).toMatchObject({ refused: 'result is 16385 characters, over its cap of 16384' });
    // Uncapped (a run older than the caps), as it was read then.
    expect((readDecision({ callId: 'c1', approved: true, by }) as { ok: { by: string } }).ok.by).toBe(by);
  });

  test('capped, a digest must have the form an approval request shows', () => {
    expect(readDecision({ callId: 'c1', approved: true, digest: 'sha256:ab' }, { capped: true })).toMatchObject({
      refused: 'digest must be sha256: and 16 hex digits, as the approval request shows it, not "sha256:ab"',
    });
    const digest = callDigest('create_issue', { title: 'A' });
    expect(readDecision({ callId: 'c1', approved: true, digest }, { capped: true })).toEqual({
      ok: { callId: 'c1', approved: true, by: 'someone', digest },
    });
  });

  test('the refusal log keeps the newest few and counts them all', () => {
    const log = refusalLog<number>();
    for (let i = 1; i <= 1_000; i++) log.add(i);
    expect(log.count()).toBe(1_000);
    expect(log.list()).toEqual(Array.from({ length: REFUSALS_KEPT }, (_, i) => 1_000 - REFUSALS_KEPT + 1 + i));
    const old = refusalLog<number>([], undefined, false);
    for (let i = 1; i <= 30; i++) old.add(i);
    expect(old.list()).toHaveLength(30);
  });
});
