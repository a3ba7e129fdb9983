import type { Scenario } from './scenario';
import type { Variant } from './variants';

/** One row of the table: a variant's counts over all its scenarios. */
export interface Row {
  variant: string;
  label: string;
  /** Crash points of a clean run: one scenario each. */
  once: number;
  /** The extra scenarios that also kill the restart, once at each point it reaches. */
  twice: number;
  /** Scenarios that ended with an extra issue or comment. */
  withDups: number;
  /** Extra issues and comments, over all scenarios. */
  dups: number;
  /** Issues and comments of the script that the tracker never got. */
  missing: number;
  /** Questions put to a person. */
  asks: number;
  /** Model calls beyond the clean run's. */
  callsExtra: number;
  /** Approvals requested beyond the clean run's. */
  approvalsExtra: number;
  /** Scenarios whose kill did not land or whose run did not finish: each one fails the sweep. */
  errors: number;
}

/** Sums each variant's scenarios into a row; `cleanApprovals` is what its clean run asked. */
export function summarize(variants: readonly Variant[], scenarios: Scenario[], cleanApprovals: Map<string, number>): Row[] {
  return variants.map((v) => {
    const mine = scenarios.filter((s) => s.variant.name === v.name && s.pass !== 'clean');
    const row: Row = {
      variant: v.name,
      label: v.label,
      once: mine.filter((s) => s.pass === 'once').length,
      twice: mine.filter((s) => s.pass === 'twice').length,
      withDups: 0,
      dups: 0,
      missing: 0,
      asks: 0,
      callsExtra: 0,
      approvalsExtra: 0,
      errors: 0,
    };
    for (const s of mine) {
      if (s.error || !s.outcome) {
        row.errors += 1;
        continue;
      }
      const o = s.outcome;
      if (o.dups > 0) row.withDups += 1;
      row.dups += o.dups;
      row.missing += o.missing;
      row.asks += o.asks;
      row.callsExtra += o.callsExtra;
      row.approvalsExtra += Math.max(0, o.approvals - (cleanApprovals.get(v.name) ?? 0));
    }
    return row;
  });
}

/** The table's columns: the row field and its title. */
export const COLUMNS: Array<[keyof Row, string]> = [
  ['once', 'once'],
  ['twice', 'twice'],
  ['withDups', 'with dups'],
  ['dups', 'dups'],
  ['missing', 'missing'],
  ['asks', 'asks'],
  ['callsExtra', 'calls+'],
  ['approvalsExtra', 'appr+'],
];

/** The table for people, in the design document's columns (plus `appr+`, and `errors` when there are any). */
export function formatTable(rows: Row[]): string {
  const labelWidth = Math.max('variant'.length, ...rows.map((r) => r.label.length)) + 2;
  const columns = rows.some((r) => r.errors > 0) ? [...COLUMNS, ['errors', 'errors'] as [keyof Row, string]] : COLUMNS;
  const widths = columns.map(([key, title]) => Math.max(title.length, ...rows.map((r) => String(r[key]).length)));
  const line = (label: string, cells: string[]) =>
    (label.padEnd(labelWidth) + cells.map((c, i) => c.padStart(widths[i])).join('  ')).trimEnd();
  return [
    line('variant', columns.map(([, title]) => title)),
    ...rows.map((r) => line(r.label, columns.map(([key]) => String(r[key])))),
  ].join('\n');
}
