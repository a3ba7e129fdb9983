// A run that ended otherwise than its clean run: damage of its own (the `other end` column).
import type { RanScenario } from '../engine/scenario';

/**
 * The scenarios, each one whose run ended otherwise than its row's clean run marked so
 * (`ScenarioResult.otherEnd`). A run's expected end is its clean run's (a saga may fail by design), or
 * the stop its row's operation made (cancelled, terminated); any other end is damage.
 */
export function withOtherEnds(scenarios: readonly RanScenario[], cleans: readonly RanScenario[]): RanScenario[] {
  return scenarios.map((s) => {
    const expected = cleans.find((c) => c.row.name === s.row.name)?.end;
    const stop = s.operations ? (s.row.faults?.find((f) => f.stops)?.stops?.end ?? null) : null;
    const other = s.outcome && s.end && expected && s.end !== expected && s.end !== stop;
    return other ? { ...s, otherEnd: { expected } } : s;
  });
}
