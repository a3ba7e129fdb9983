// Scenarios that erred run again, alone in smaller batches, until a run of each is clean or none are left.
import { newScenario, type RanScenario, type Scenario } from './scenario';

/** A run of a scenario that erred and was run again (a fresh run of the same row, killed at the same points). */
export interface Rerun {
  /** The scenario's id (`agent twice 3.7`). */
  id: string;
  /** Which run of it erred: 1 for the first, 2 for its first re-run. */
  attempt: number;
  /** Why that run did not count. */
  error: string;
}

/** The largest batch of re-runs: a smaller batch loads the machine less. */
const RERUN_BATCH = 25;

/** What running scenarios again needs from the sweep. */
export interface RerunContext {
  /** Runs scenarios in batches of at most `batchSize` (default the sweep's): what each did, in their order. */
  run(scenarios: readonly Scenario[], phase: string, batchSize?: number): Promise<RanScenario[]>;
  batchSize: number;
  /** How many times a scenario that erred runs again before its error stands. */
  maxReruns: number;
  progress(line: string): void;
  /** Every run that erred is added here, in order. */
  reruns: Rerun[];
}

/**
 * Runs the scenarios, then each one that erred (as `erred` says) again, alone in smaller batches,
 * until a run is clean or none are left. Returns what each one's last run did, in their order: a
 * scenario run again is a fresh run of it, with its own ids.
 */
export async function runAndRerun(
  planned: readonly Scenario[],
  phase: string,
  erred: (s: RanScenario) => Promise<string | null>,
  { run, batchSize, maxReruns, progress, reruns }: RerunContext,
): Promise<RanScenario[]> {
  const scenarios = [...planned];
  const ran = await run(scenarios, phase);
  for (let attempt = 1; ; attempt++) {
    const failed: Array<{ at: number; error: string }> = [];
    for (const [at, s] of ran.entries()) {
      const error = await erred(s);
      if (error) failed.push({ at, error });
    }
    if (failed.length === 0 || attempt > maxReruns) return ran;
    progress(
      `${phase}: ${failed.length} scenario(s) erred, running them again (${attempt} of ${maxReruns}): ${summarizeErrors(failed.map((f) => f.error))}`,
    );
    for (const { at, error } of failed) reruns.push({ id: scenarios[at].id, attempt, error });
    // A clean run runs again with its pair, the second after the first in one worker process, so
    // that the two still compare (clean-twice.ts).
    const redo = new Set(failed.map((f) => f.at));
    for (const at of [...redo]) {
      const s = scenarios[at];
      const pair = scenarios.findIndex((o) => o.after === s || (s.after !== undefined && o === s.after));
      if (pair >= 0) redo.add(pair);
    }
    const renewed = new Map<Scenario, Scenario>();
    const indexes = [...redo].sort((a, b) => a - b);
    const again = indexes.map((i) => {
      const s = scenarios[i];
      const fresh = rerunOf(s, renewed);
      renewed.set(s, fresh);
      return (scenarios[i] = fresh);
    });
    const results = await run(again, `${phase}, again`, Math.min(batchSize, RERUN_BATCH));
    for (const [j, i] of indexes.entries()) ran[i] = results[j];
  }
}

/** A fresh run of a scenario: the same row, killed at the same points, expected to land where it was. */
function rerunOf(s: Scenario, renewed: ReadonlyMap<Scenario, Scenario>): Scenario {
  // A second clean run follows its first's new run: the two run again together.
  const first = s.after && renewed.get(s.after);
  return newScenario(s.row, s.pass, s.label, s.kills, s.expected, first || undefined);
}

/** Why scenarios erred, for a progress line: each kind of error (its words up to the first detail) with its count. */
export function summarizeErrors(errors: string[]): string {
  const kinds = new Map<string, number>();
  for (const e of errors) {
    const kind = e.split(/[:(]/)[0].trim();
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return [...kinds].map(([kind, n]) => `${n} ${kind}`).join(', ');
}
