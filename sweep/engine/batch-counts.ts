// A batch's counts: each finished run's effects, through its suite, and its history's audit.
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { auditHistory, type GenerationRecord } from '../judge/audit';
import { fillCounts } from '../judge/counts';
import { toleranceOf } from '../faults';
import type { Generation } from './generation';
import type { SuiteRow, SuiteRun, SweepSuite } from './suite';
import type { Running, RunWatch } from './runs';

/** The end a row's fault gives a run it stopped (`cancelled`, `terminated`), if `error` is that stop; else `null`. */
export function stoppedEnd(row: SuiteRow, error: Error): string | null {
  const stop = row.faults?.find((f) => f.stops?.is(error))?.stops;
  return stop?.end ?? null;
}

/** The end of a run that completed (`ScenarioResult.end`). */
export const COMPLETED = 'completed';

/**
 * What a run's failure says, if its workflow chose it (it threw an `ApplicationFailure`), with its
 * workflow id written `{workflowId}` so that runs compare; `null` for a failure it did not choose.
 */
function chosenFailure(error: Error, workflowId: string): string | null {
  const cause = (error as Error & { cause?: Error }).cause;
  if (!(cause instanceof ApplicationFailure)) return null;
  const text = `${cause.type ? `${cause.type}: ` : ''}${cause.message}`;
  return text.split(workflowId).join('{workflowId}');
}

/** Counts each finished run's effects through the suite, and checks its history: every timeout in it must be a kill's. */
export async function countBatch(
  batch: Running[],
  client: Client,
  suite: SweepSuite,
  runsOf: Map<string, SuiteRun>,
  generations: Generation[],
  runs: RunWatch,
): Promise<void> {
  const last = generations[generations.length - 1];
  const records: GenerationRecord[] = generations.map((g) => ({
    identity: g.identity,
    killedAt: g === last ? 0 : g.killedAt,
    parked: new Map(g.parkedAt),
  }));
  await Promise.all(
    batch.map(async (s) => {
      s.finalPoints = last.points.get(s.workflowId) ?? [];
      const slow = new Set(toleranceOf(s.row).slowActivities);
      for (const g of generations) {
        const late = g.late.get(s.workflowId)?.find((l) => !slow.has(l.activityType));
        if (late)
          s.error ??= `a live activity outlived its timeout (${late.detail}): the machine was too slow for the sweep's timeouts`;
      }
      // Attempts a parked worker took while it waited for the kill: what they changed is judged below.
      const taken = generations.flatMap((g) => g.takenWhileParked.get(s.workflowId) ?? []);
      if (s.stuck) {
        // A run stuck after a parked worker spent its call's attempts is stuck by the sweep's timing.
        if (taken.length > 0)
          s.error ??= `stuck after a parked worker, waiting for its kill, took ${taken.length} attempt(s) of its calls (${taken.map((t) => `${t.activityType} attempt ${t.attempt}`).join(', ')}): the kill came after the call's timeout`;
        // Stuck, and ended by the sweep: what the receivers did is still counted, if the suite can count
        // a run with no result; if not, the stuck column alone says what happened.
        try {
          s.outcome = fillCounts(await suite.check(runsOf.get(s.workflowId)!, undefined));
        } catch {
          s.outcome = fillCounts({ dups: 0, missing: 0 });
        }
        return;
      }
      const ended = runs.ended.has(s.workflowId) && runs.results.get(s.workflowId);
      if (!ended) return; // it did not finish, or never started: its error says so
      const result = await ended;
      // A run that failed as its code says it may (it threw: a saga that compensated, say) ended, and so
      // did a run the row's operation stopped (cancelled, terminated); any other failure (terminated,
      // cancelled, timed out) is not an end a workflow chose.
      const stopped = result.ok ? null : stoppedEnd(s.row, result.error);
      const failure = result.ok ? null : chosenFailure(result.error, s.workflowId);
      const failedHow = () => {
        const e = result.ok ? null : (result.error as Error & { cause?: Error });
        return `the run failed: ${e?.message}${e?.cause ? `: ${e.cause.message}` : ''}`;
      };
      if (!result.ok && failure === null && stopped === null) {
        s.error ??= failedHow();
        return;
      }
      s.end = stopped ?? (failure === null ? COMPLETED : `failed: ${failure}`);
      const history = await client.workflow.getHandle(s.workflowId).fetchHistory();
      const problems = auditHistory(s.workflowId, history.events ?? [], records, slow, taken);
      if (problems.length > 0) s.error ??= `not caused by a kill: ${problems.join('; ')}`;
      try {
        const c = await suite.check(
          runsOf.get(s.workflowId)!,
          result.ok ? result.value : undefined,
          stopped ?? failure ?? undefined,
        );
        s.outcome = fillCounts(c);
      } catch (err) {
        s.error ??=
          failure === null && stopped === null ? `counting its effects failed: ${(err as Error).message}` : failedHow();
      }
    }),
  );
}
