// A run that ended otherwise than its clean run: damage of its own (the `other end` column).
import type { Scenario } from '../engine/scenario';

/**
 * Marks each scenario whose run ended otherwise than its row's clean run (`Scenario.otherEnd`). A run's
 * expected end is its clean run's (a saga may fail by design), or the stop its row's operation made
 * (cancelled, terminated); any other end is damage.
 */
export function markOtherEnds(scenarios: readonly Scenario[], cleans: readonly Scenario[]): void {
  for (const s of scenarios) {
    const expected = cleans.find((c) => c.row.name === s.row.name)?.end;
    const stop = s.operations ? (s.row.faults?.find((f) => f.stops)?.stops?.end ?? null) : null;
    if (s.outcome && s.end && expected && s.end !== expected && s.end !== stop) s.otherEnd = { expected };
  }
}
