import type { Outcome, Scenario } from '../engine/scenario';
import type { SuiteRow } from '../engine/suite';

/** One row of the table: a variant's counts over all its scenarios. */
export interface Row {
  variant: string;
  label: string;
  /** What fails in the row's scenarios (see {@link WORKER_GROUP}). */
  group: string;
  /** Crash points of a clean run: one scenario each. */
  once: number;
  /** The extra scenarios that also kill the restart, once at each point it reaches. */
  twice: number;
  /** Scenarios that ended with a duplicate effect (the agent: an extra issue or comment). */
  withDups: number;
  /** Duplicate effects, over all scenarios. */
  dups: number;
  /** Effects that should have happened and did not (the agent: issues and comments the tracker never got). */
  missing: number;
  /** Effects nothing in the run accounts for (the agent: a write of a model reply its history does not hold). */
  orphans: number;
  /** Questions put to a person. */
  asks: number;
  /** Model calls beyond the clean run's. */
  callsExtra: number;
  /** Approvals requested beyond the clean run's. */
  approvalsExtra: number;
  /** Scenarios whose kill did not land or whose run did not finish: each one fails the sweep. */
  errors: number;
}

/** The group of a row in which only the worker fails. */
export const WORKER_GROUP = 'the worker dies';

/** Sums each row's scenarios; `clean` is what each row's clean run made (calls, approvals). */
export function summarize(variants: readonly SuiteRow[], scenarios: Scenario[], clean: Map<string, Outcome>): Row[] {
  return variants.map((v) => {
    const mine = scenarios.filter((s) => s.variant.name === v.name && s.pass !== 'clean');
    const row: Row = {
      variant: v.name,
      label: v.label,
      group: v.group ?? WORKER_GROUP,
      once: mine.filter((s) => s.pass === 'once').length,
      twice: mine.filter((s) => s.pass === 'twice').length,
      withDups: 0,
      dups: 0,
      missing: 0,
      orphans: 0,
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
      row.orphans += o.orphans;
      row.asks += o.asks;
      row.callsExtra += Math.max(0, o.calls - (clean.get(v.name)?.calls ?? 0));
      row.approvalsExtra += Math.max(0, o.approvals - (clean.get(v.name)?.approvals ?? 0));
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
  ['orphans', 'orphans'],
  ['asks', 'asks'],
  ['callsExtra', 'calls+'],
  ['approvalsExtra', 'appr+'],
];

/**
 * The table for people, in the design document's columns (plus `appr+`, and `errors` when there are
 * any). When its rows belong to more than one group (what fails), each group comes under a heading line.
 */
export function formatTable(rows: Row[]): string {
  const labelWidth = Math.max('variant'.length, ...rows.map((r) => r.label.length)) + 2;
  const columns = rows.some((r) => r.errors > 0) ? [...COLUMNS, ['errors', 'errors'] as [keyof Row, string]] : COLUMNS;
  const widths = columns.map(([key, title]) => Math.max(title.length, ...rows.map((r) => String(r[key]).length)));
  const line = (label: string, cells: string[]) =>
    (label.padEnd(labelWidth) + cells.map((c, i) => c.padStart(widths[i])).join('  ')).trimEnd();
  const grouped = new Set(rows.map((r) => r.group)).size > 1;
  const lines = [line('variant', columns.map(([, title]) => title))];
  rows.forEach((r, i) => {
    if (grouped && (i === 0 || rows[i - 1].group !== r.group)) lines.push(`-- ${r.group} --`);
    lines.push(line(r.label, columns.map(([key]) => String(r[key]))));
  });
  return lines.join('\n');
}
