// `npx tsx sweep/report/tails.ts REPORT.json`: how much of each scenario's run repeats its clean run, by
// point, read from a sweep's `--json` report. The measure behind the sweep's speed by design
// (docs/forking.md): a scenario pays for its prefix (the points before its kill, which the clean run
// passed too) and for its restart, whose last points repeat the clean run's last points call for
// call once the run is back on the clean run's path. What repeats is what a sweep that forks from
// the clean run and counts its tail from records would not run again.
import { readFileSync } from 'node:fs';
import type { JsonReport } from './json';

/** A point as a report keeps it. */
interface Point {
  name: string;
  detail: string;
}

/** How many of `run`'s last points are `clean`'s last points, in order. */
export function sharedTail(run: readonly Point[], clean: readonly Point[]): number {
  let n = 0;
  while (
    n < run.length &&
    n < clean.length &&
    run[run.length - 1 - n].name === clean[clean.length - 1 - n].name &&
    run[run.length - 1 - n].detail === clean[clean.length - 1 - n].detail
  )
    n += 1;
  return n;
}

/** A row's scenarios by points: what they ran, and how much of it the clean run had run already. */
export interface RowTails {
  row: string;
  scenarios: number;
  /** Points before the first kill, summed: the prefix, the clean run's own. */
  prefix: number;
  /** Points of a restart before the kill that ends it (the second pass), summed. */
  between: number;
  /** Points of the last restart, summed. */
  restart: number;
  /** Of those, the last ones that repeat the clean run's last points, summed. */
  tail: number;
}

/** Each row's scenarios that finished, by points (those that erred hold no restart). */
export function tailsOf(report: Pick<JsonReport, 'points' | 'scenarios'>): RowTails[] {
  const rows = new Map<string, RowTails>();
  for (const s of report.scenarios) {
    if (s.error) continue;
    const clean = report.points[s.row] ?? [];
    const row = rows.get(s.row) ?? { row: s.row, scenarios: 0, prefix: 0, between: 0, restart: 0, tail: 0 };
    row.scenarios += 1;
    row.prefix += s.kills[0] - 1;
    row.between += s.kills.slice(1).reduce((n, k) => n + k - 1, 0);
    row.restart += s.restartPoints.length;
    row.tail += sharedTail(s.restartPoints, clean);
    rows.set(s.row, row);
  }
  return [...rows.values()];
}

/**
 * The rows' figures and their sum, for people: the points the scenarios ran, the share of them that
 * was the clean run's prefix, the share that repeated the clean run's tail, and the rest (the part a
 * forking sweep would still have to run: the recovery until the run is back on the clean path).
 */
export function formatTails(tails: readonly RowTails[]): string {
  const sum = tails.reduce(
    (t, r) => ({
      row: 'all rows',
      scenarios: t.scenarios + r.scenarios,
      prefix: t.prefix + r.prefix,
      between: t.between + r.between,
      restart: t.restart + r.restart,
      tail: t.tail + r.tail,
    }),
    { row: 'all rows', scenarios: 0, prefix: 0, between: 0, restart: 0, tail: 0 },
  );
  const pct = (part: number, whole: number) => `${whole === 0 ? 0 : Math.round((100 * part) / whole)}%`;
  const line = (r: RowTails) => {
    const all = r.prefix + r.between + r.restart;
    return `${r.row.padEnd(40)} ${String(r.scenarios).padStart(6)} ${String(all).padStart(8)} ${pct(r.prefix, all).padStart(7)} ${pct(r.tail, all).padStart(11)} ${pct(all - r.prefix - r.tail, all).padStart(7)}`;
  };
  return [
    `${'row'.padEnd(40)} ${'scen.'.padStart(6)} ${'points'.padStart(8)} ${'prefix'.padStart(7)} ${'clean tail'.padStart(11)} ${'rest'.padStart(7)}`,
    ...tails.map(line),
    line(sum),
  ].join('\n');
}

if (require.main === module) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: npx tsx sweep/report/tails.ts REPORT.json (a sweep --json report)');
    process.exit(2);
  }
  const report = JSON.parse(readFileSync(file, 'utf8')) as JsonReport;
  console.log(formatTails(tailsOf(report)));
}
