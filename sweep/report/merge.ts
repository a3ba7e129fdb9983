// `crash-sweep merge`: the JSON reports of a sweep's shards (`--shard K/N`) joined into the one
// report a single sweep would have written: its rows summed, its scenarios in the single sweep's order.
import { z } from 'zod';
import { COLUMNS, type ColumnField } from '../judge/columns';
import type { JsonReport } from './json';

/** Thrown for reports that are not the whole of one sharded sweep: each message names what is wrong. */
export class MergeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MergeError';
  }
}

const count = z.number().int().nonnegative();
const point = z.object({ name: z.string(), detail: z.string() });
const row = z.object({
  name: z.string(),
  label: z.string(),
  group: z.string(),
  // A column shown only when a row has a count in it may be missing from a report written before it existed.
  ...Object.fromEntries(COLUMNS.map((c) => [c.field, c.whenAny ? count.default(0) : count])),
  control: z.literal(true).optional(),
});
/** What merging reads of a report, checked where the file comes in; the rest of each scenario passes through. */
const shardReport = z.object({
  rows: z.array(row),
  points: z.record(z.array(point)),
  seconds: z.number().nonnegative(),
  notes: z.array(z.string()).default([]),
  rerun: z.object({
    existingServer: z.boolean().optional(),
    config: z.string().optional(),
    command: z.string().optional(),
  }),
  shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).nullable(),
  scenarios: z.array(
    z
      .object({ id: z.string(), row: z.string(), pass: z.enum(['once', 'twice']), kills: z.array(count).min(1) })
      .passthrough(),
  ),
  reruns: z.array(z.object({ id: z.string(), attempt: count, error: z.string() })),
});

/** The counts of a row, which shards add up: every column's. */
const SUMMED: readonly ColumnField[] = COLUMNS.map((c) => c.field);

/** Reads one shard's report (`--json` of a sweep run with `--shard K/N`), or says why it is not one. */
export function parseShardReport(text: string, name: string): JsonReport {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new MergeError(`${name} is not JSON: ${(err as Error).message}`);
  }
  const parsed = shardReport.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MergeError(
      `${name} is not a sweep's JSON report (--json): ${issue.path.join('.') || 'the top'}: ${issue.message}`,
    );
  }
  if (!parsed.data.shard) throw new MergeError(`${name} is the report of a whole sweep, not of a shard (--shard K/N)`);
  return parsed.data as unknown as JsonReport;
}

/**
 * Joins the reports of every shard of one sweep (given in any order) into the report of the whole:
 * the same rows (each count the sum of the shards'), the same points, every scenario once, in the
 * order a single sweep lists them. Refuses shares that are missing, repeated or of another sweep.
 */
export function mergeShards(reports: ReadonlyArray<{ name: string; report: JsonReport }>): JsonReport {
  if (reports.length === 0) throw new MergeError('no report to merge');
  const [first] = reports;
  const shardCount = first.report.shard!.count;
  const byIndex = new Map<number, string>();
  for (const { name, report } of reports) {
    const { index, count: n } = report.shard!;
    if (n !== shardCount)
      throw new MergeError(`${name} is shard ${index}/${n}, ${first.name} one of ${shardCount}: not the same split`);
    if (byIndex.has(index)) throw new MergeError(`${name} and ${byIndex.get(index)} are both shard ${index}/${n}`);
    byIndex.set(index, name);
    const rowsOf = (r: JsonReport) => JSON.stringify(r.rows.map((x) => [x.name, x.label, x.group]));
    if (rowsOf(report) !== rowsOf(first.report))
      throw new MergeError(
        `${name} swept other rows than ${first.name}: ${rowsOf(report)} against ${rowsOf(first.report)}`,
      );
    for (const [rowName, points] of Object.entries(report.points))
      if (JSON.stringify(points) !== JSON.stringify(first.report.points[rowName]))
        throw new MergeError(
          `the clean run of ${rowName} reached other points in ${name} than in ${first.name}: the shards did not sweep the same code`,
        );
  }
  const missing = Array.from({ length: shardCount }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length > 0)
    throw new MergeError(
      `shard(s) ${missing.map((i) => `${i}/${shardCount}`).join(', ')} missing: merge needs all ${shardCount}`,
    );

  const rows = first.report.rows.map((r, i) => {
    const sum = { ...r };
    for (const key of SUMMED) sum[key] = reports.reduce((n, { report }) => n + report.rows[i][key], 0);
    return sum;
  });
  const rowOrder = new Map(rows.map((r, i) => [r.name, i]));
  const passOrder = { once: 0, twice: 1 } as const;
  const scenarios = reports.flatMap(({ report }) => report.scenarios);
  const seen = new Set<string>();
  for (const s of scenarios) {
    if (seen.has(s.id)) throw new MergeError(`scenario ${s.id} is in more than one shard`);
    seen.add(s.id);
  }
  // A single sweep's order: the first pass, then the second; by row; by kill indexes.
  scenarios.sort((a, b) => {
    const byPass = passOrder[a.pass as 'once' | 'twice'] - passOrder[b.pass as 'once' | 'twice'];
    if (byPass !== 0) return byPass;
    const byRow = (rowOrder.get(a.row) ?? 0) - (rowOrder.get(b.row) ?? 0);
    if (byRow !== 0) return byRow;
    for (let k = 0; k < Math.max(a.kills.length, b.kills.length); k++) {
      const d = (a.kills[k] ?? 0) - (b.kills[k] ?? 0);
      if (d !== 0) return d;
    }
    return 0;
  });
  const inOrder = [...reports].sort((a, b) => a.report.shard!.index - b.report.shard!.index);
  return {
    rows,
    points: first.report.points,
    // The shards ran side by side: the sweep took as long as the longest.
    seconds: Math.max(...reports.map(({ report }) => report.seconds)),
    notes: first.report.notes,
    rerun: first.report.rerun,
    shard: null,
    scenarios,
    reruns: inOrder.flatMap(({ report }) => report.reruns),
  };
}
