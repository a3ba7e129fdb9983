// Splitting a sweep into shards and joining their reports, as pure logic (no server): every scenario
// in exactly one shard, counts summed, and reports that are not one split sweep refused with a reason.
import { parseShard, shareOf } from '../sweep/engine/planning';
import { MergeError, mergeShards, parseShardReport } from '../sweep/report/merge';
import type { JsonReport } from '../sweep/report/json';
import { emptyRow, type Row } from '../sweep/judge/counting';

const row = (counts: Partial<Row>): Row => ({ ...emptyRow({ name: 'r', label: 'a row' }), ...counts });

const scenario = (pass: 'once' | 'twice', kills: number[]) => ({
  id: `r ${pass} ${kills.join('.')}`,
  row: 'r',
  pass,
  kills,
  error: null,
});

function shard(index: number, count: number, rows: Row[], scenarios: ReturnType<typeof scenario>[]): JsonReport {
  return {
    rows,
    points: { r: [{ name: 'p', detail: 'd' }] },
    seconds: 10 * index,
    rerun: {},
    shard: { index, count },
    scenarios,
    reruns: [],
  } as unknown as JsonReport;
}

describe('shards', () => {
  test('K/N is read, anything else refused with the form', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    for (const bad of ['0/2', '3/2', '1/0', '1', 'a/b', '1/2/3', '-1/2'])
      expect(() => parseShard(bad)).toThrow(/^bad shard ".*": K\/N/);
  });

  test('the shards of N take every scenario exactly once, and none takes them all', () => {
    const once = Array.from({ length: 25 }, (_, i) => i);
    for (const count of [1, 2, 3, 7, 30]) {
      const shares = Array.from({ length: count }, (_, k) => shareOf(once, { index: k + 1, count }));
      expect(shares.flat().sort((a, b) => a - b)).toEqual(once);
      if (count > 1) expect(shares.every((s) => s.length < once.length)).toBe(true);
    }
    expect(shareOf(once, undefined)).toEqual(once);
  });
});

describe('merging the reports of the shards', () => {
  test("rows are summed and scenarios put in a single sweep's order, whatever the order of the files", () => {
    const one = shard(
      1,
      2,
      [row({ once: 2, twice: 3, dups: 1, withDups: 1 })],
      [
        scenario('once', [1]),
        scenario('once', [3]),
        scenario('twice', [1, 1]),
        scenario('twice', [3, 2]),
        scenario('twice', [3, 1]),
      ],
    );
    const two = shard(
      2,
      2,
      [row({ once: 1, twice: 1, dups: 2, withDups: 1, errors: 1 })],
      [scenario('once', [2]), scenario('twice', [2, 1])],
    );
    const merged = mergeShards([
      { name: 'b', report: two },
      { name: 'a', report: one },
    ]);
    expect(merged.rows).toEqual([row({ once: 3, twice: 4, dups: 3, withDups: 2, errors: 1 })]);
    expect(merged.scenarios.map((s) => s.id)).toEqual([
      'r once 1',
      'r once 2',
      'r once 3',
      'r twice 1.1',
      'r twice 2.1',
      'r twice 3.1',
      'r twice 3.2',
    ]);
    expect([merged.shard, merged.seconds]).toEqual([null, 20]);
  });

  test('reports that are not every shard of one sweep are refused, naming what is wrong', () => {
    const one = shard(1, 2, [row({})], [scenario('once', [1])]);
    const two = shard(2, 2, [row({})], [scenario('once', [2])]);
    const merge =
      (...reports: JsonReport[]) =>
      () =>
        mergeShards(reports.map((report, i) => ({ name: `f${i + 1}.json`, report })));
    expect(merge(one)).toThrow('shard(s) 2/2 missing: merge needs all 2');
    expect(merge(one, one)).toThrow('f2.json and f1.json are both shard 1/2');
    expect(merge(one, shard(2, 3, [row({})], []))).toThrow(
      'f2.json is shard 2/3, f1.json one of 2: not the same split',
    );
    expect(merge(one, shard(2, 2, [row({ name: 'other' })], []))).toThrow(/f2\.json swept other rows than f1\.json/);
    expect(merge(one, { ...two, scenarios: [scenario('once', [1])] } as unknown as JsonReport)).toThrow(
      'scenario r once 1 is in more than one shard',
    );
    expect(merge(one, { ...two, points: { r: [] } })).toThrow(
      'the clean run of r reached other points in f2.json than in f1.json',
    );
    expect(merge()).toThrow(MergeError);
  });

  test('a file that is not a shard report is refused where it is read', () => {
    expect(() => parseShardReport('{', 'x.json')).toThrow(/^x\.json is not JSON/);
    expect(() => parseShardReport('[]', 'x.json')).toThrow(/^x\.json is not a sweep's JSON report \(--json\): the top/);
    const good = shard(1, 1, [row({})], [scenario('once', [1])]);
    expect(parseShardReport(JSON.stringify(good), 'x.json').scenarios).toHaveLength(1);
    const badCount = { ...good, rows: [{ ...good.rows[0], dups: -1 }] };
    expect(() => parseShardReport(JSON.stringify(badCount), 'x.json')).toThrow(/: rows\.0\.dups: /);
    const badPass = { ...good, scenarios: [{ ...good.scenarios[0], pass: 'clean' }] };
    expect(() => parseShardReport(JSON.stringify(badPass), 'x.json')).toThrow(/: scenarios\.0\.pass: /);
    expect(() => parseShardReport(JSON.stringify({ ...good, shard: null }), 'x.json')).toThrow(
      'x.json is the report of a whole sweep, not of a shard (--shard K/N)',
    );
  });
});
