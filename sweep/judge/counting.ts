// How damage is counted: a suite counts one run (Counts), the engine fills in the defaults (Outcome),
// and sums a row's scenarios into a row of the table (Row).
// It needs nothing of the engine: a scenario and a row are read only for what is counted here.

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

/** One row of the table: a row's counts over all its scenarios. */
export interface Row {
  /** The row's name (`--variant NAME`). */
  name: string;
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
  /** Copies of a call's effect made with other arguments, over all scenarios (`Counts.diverged`). */
  diverged: number;
  /** Effects that should have happened and did not (the agent: issues and comments the tracker never got). */
  missing: number;
  /** Effects nothing in the run accounts for (the agent: a write of a model reply its history does not hold). */
  orphans: number;
  /** Effects a run a person stopped had asked for and never made (the agent: a reply's writes it did not get to). */
  halfDone: number;
  /** Questions put to a person. */
  asks: number;
  /** Model calls beyond the clean run's. */
  callsExtra: number;
  /** Approvals requested beyond the clean run's. */
  approvalsExtra: number;
  /** Scenarios whose run could never finish (after its last restart an activity kept failing the same way). */
  stuck: number;
  /** Scenarios whose run ended otherwise than its clean run (completed where that one failed, or failed otherwise). */
  otherEnds: number;
  /** Scenarios whose kill did not land or whose run did not finish: each one fails the sweep. */
  errors: number;
  /** A control: a row that must show damage (`SuiteRow.control`, `controls.ts`). Absent: not one. */
  control?: true;
}

/** The group of a row in which only the worker fails. */
export const WORKER_GROUP = 'the worker dies';

/** What {@link summarize} reads of a scenario (`Scenario` in scenario.ts). */
export interface CountedScenario {
  row: { name: string };
  pass: 'clean' | 'once' | 'twice';
  outcome?: Outcome;
  stuck?: unknown;
  otherEnd?: unknown;
  error?: string;
}

/** A row of the table with every count 0. */
export function emptyRow(v: { name: string; label: string; group?: string; control?: boolean }): Row {
  return {
    ...(v.control ? { control: true as const } : {}),
    name: v.name,
    label: v.label,
    group: v.group ?? WORKER_GROUP,
    once: 0,
    twice: 0,
    withDups: 0,
    dups: 0,
    diverged: 0,
    missing: 0,
    orphans: 0,
    halfDone: 0,
    asks: 0,
    callsExtra: 0,
    approvalsExtra: 0,
    stuck: 0,
    otherEnds: 0,
    errors: 0,
  };
}

/** Sums each row's scenarios; `clean` is what each row's clean run made (calls, approvals). */
export function summarize(
  rows: ReadonlyArray<{ name: string; label: string; group?: string; control?: boolean }>,
  scenarios: ReadonlyArray<CountedScenario>,
  clean: Map<string, Outcome>,
): Row[] {
  return rows.map((v) => {
    const mine = scenarios.filter((s) => s.row.name === v.name && s.pass !== 'clean');
    const row = emptyRow(v);
    row.once = mine.filter((s) => s.pass === 'once').length;
    row.twice = mine.filter((s) => s.pass === 'twice').length;
    for (const s of mine) {
      if (s.error || !s.outcome) {
        row.errors += 1;
        continue;
      }
      const o = s.outcome;
      if (s.stuck) row.stuck += 1;
      if (s.otherEnd) row.otherEnds += 1;
      if (o.dups > 0) row.withDups += 1;
      row.dups += o.dups;
      row.diverged += o.diverged;
      row.missing += o.missing;
      row.orphans += o.orphans;
      row.halfDone += o.halfDone;
      row.asks += o.asks;
      row.callsExtra += Math.max(0, o.calls - (clean.get(v.name)?.calls ?? 0));
      row.approvalsExtra += Math.max(0, o.approvals - (clean.get(v.name)?.approvals ?? 0));
    }
    return row;
  });
}
