// How damage is counted: a row's scenarios, each with its run's counts (`counts.ts`), summed into a
// row of the table (Row).
// It needs nothing of the engine: a scenario and a row are read only for what is counted here; what each
// column counts is the column list's (`columns.ts`).
import { COLUMNS, type ColumnField, type CountedScenario } from './columns';
import type { Outcome } from './counts';

export type { CountedScenario } from './columns';

/** One row of the table: a row's counts over all its scenarios, a field per column (`columns.ts`). */
export type Row = {
  /** The row's name (`--variant NAME`). */
  name: string;
  label: string;
  /** What fails in the row's scenarios (see {@link WORKER_GROUP}). */
  group: string;
  /** A control: a row that must show damage (`SuiteRow.control`, `controls.ts`). Absent: not one. */
  control?: true;
} & Record<ColumnField, number>;

/** The group of a row in which only the worker fails. */
export const WORKER_GROUP = 'the worker dies';

/** A row of the table with every count 0. */
export function emptyRow(v: { name: string; label: string; group?: string; control?: boolean }): Row {
  const counts = Object.fromEntries(COLUMNS.map((c) => [c.field, 0])) as Record<ColumnField, number>;
  return {
    ...(v.control ? { control: true as const } : {}),
    name: v.name,
    label: v.label,
    group: v.group ?? WORKER_GROUP,
    ...counts,
  };
}

/** Sums each row's scenarios, column by column; `clean` is what each row's clean run made (calls, approvals). */
export function summarize(
  rows: ReadonlyArray<{ name: string; label: string; group?: string; control?: boolean }>,
  scenarios: ReadonlyArray<CountedScenario>,
  clean: Map<string, Outcome>,
): Row[] {
  return rows.map((v) => {
    const mine = scenarios.filter((s) => s.row.name === v.name && s.pass !== 'clean');
    const row = emptyRow(v);
    for (const c of COLUMNS) row[c.field] = mine.reduce((n, s) => n + c.of(s, clean.get(v.name)), 0);
    return row;
  });
}
