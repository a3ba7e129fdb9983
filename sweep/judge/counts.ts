// One run's counts: what a suite counts of a run (Counts), and the same with every default filled in
// (Outcome), as the engine keeps it for a scenario. The columns (`columns.ts`) read it; counting
// (`counting.ts`) sums it into rows.

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
