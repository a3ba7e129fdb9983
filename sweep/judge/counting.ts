// How damage is counted: a suite counts one run (Counts), the engine fills in the defaults (Outcome),
// and sums a row's scenarios into a row of the table (Row).
// It needs nothing of the engine: a scenario and a row are read only for what is counted here; what each
// column counts is the column list's (`columns.ts`).
import { COLUMNS, type ColumnField, type CountedScenario } from './columns';

export type { CountedScenario } from './columns';

/**
 * A run's damage, counted from ground truth. The table shows the counts as they are, but `calls` and
 * `approvals` beyond what the row's clean run made.
 */
export interface Counts {
  /** Effects that happened more than once, the same each time (each extra copy counts). */
  dups: number;
  /**
   * Calls acted on more than once with other arguments (the same call, by its key, made into effects
   * that differ: two different charges): each copy unlike the first counts here, not in `dups`. Default 0.
   */
  diverged?: number;
  /** Effects that should have happened and did not. */
  missing: number;
  /** Effects nothing in the run accounts for (a call of a model reply the run did not keep). Default 0. */
  orphans?: number;
  /**
   * Effects a run that a person stopped (cancelled or terminated: the `cancel` and `terminate` faults) had asked for
   * and never made: the agent's, the writes of a reply in its history that never reached the tracker.
   * Counted instead of `missing` for such a run, whose end the person chose. Default 0.
   */
  halfDone?: number;
  /** Questions put to a person. Default 0. */
  asks?: number;
  /** Paid calls made (model calls). Default 0. */
  calls?: number;
  /** Approvals requested. Default 0. */
  approvals?: number;
  /** Anything else worth keeping in the JSON report (issues, comments...). */
  details?: Record<string, number>;
}

/** A run's counts with every default filled in, as the engine keeps them for a scenario. */
export type Outcome = Required<Omit<Counts, 'details'>> & Pick<Counts, 'details'>;

/** Fills in a suite's counts: what it left out is 0. */
export function fillCounts(c: Counts): Outcome {
  return {
    dups: c.dups,
    diverged: c.diverged ?? 0,
    missing: c.missing,
    orphans: c.orphans ?? 0,
    halfDone: c.halfDone ?? 0,
    asks: c.asks ?? 0,
    calls: c.calls ?? 0,
    approvals: c.approvals ?? 0,
    ...(c.details ? { details: c.details } : {}),
  };
}

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
