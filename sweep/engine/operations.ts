// A person's (or a retry policy's) operations on a run at a kill, done by the engine once its worker is dead.
import type { Client } from '@temporalio/client';
import { CancelledFailure, defaultPayloadConverter, TerminatedFailure } from '@temporalio/common';
import { FAIL_FOR_RETRY_HEADER, FAIL_FOR_RETRY_SIGNAL } from '../../common/crash-points';
import { resetRun, ResetTargetError } from '../../common/operations';
import type { Scenario } from './scenario';
import type { RunOperation } from './suite';
import { clientWithStartHeader } from './start-headers';

/**
 * Does each run's row's operation to it, its worker dead (`SuiteRow.operation`):
 * - `reset`: resets it to its last workflow task, or its first (the new run is watched by `resultOf`).
 *   A run that has completed no workflow task has nothing to reset to: it goes on as after a kill, and
 *   says so.
 * - `retry`: signals it to fail (the plugin's workflow interceptor throws a retryable failure in its
 *   next workflow task, in the fresh worker), and its retry policy starts it over under the same
 *   workflow id, with the same input.
 * - `cancel`: asks it to cancel, as `npm run cancel` does; the fresh worker runs the workflow's own
 *   clean-up, if it has any.
 * - `terminate`: terminates it; nothing of it runs again.
 */
export async function operate(runs: Scenario[], client: Client, round: number): Promise<void> {
  const reason = (s: Scenario) => `crash sweep: ${s.id}, at kill ${round + 1}`;
  await Promise.all(
    runs.map(async (s) => {
      const op = s.row.operation!;
      if (op.kind === 'cancel' || op.kind === 'terminate') {
        const handle = client.workflow.getHandle(s.workflowId);
        if (op.kind === 'cancel') await handle.cancel();
        else await handle.terminate(reason(s));
        (s.operations ??= []).push(STOPPED[op.kind]);
        return;
      }
      if (op.kind === 'retry') {
        await client.workflow.getHandle(s.workflowId).signal(FAIL_FOR_RETRY_SIGNAL, reason(s));
        (s.operations ??= []).push('failed for its retry policy');
        return;
      }
      try {
        const done = await resetRun(client, s.workflowId, { to: op.to, reason: reason(s) });
        (s.operations ??= []).push(`reset to event ${done.eventId} (${op.to})`);
      } catch (err) {
        if (!(err instanceof ResetTargetError)) throw err;
        (s.operations ??= []).push(`no reset: ${err.message}`);
      }
    }),
  );
}

/**
 * A client like `client` whose runs the engine may fail for their retry policy (they carry the
 * fail-for-retry header, which the plugin looks for): what a suite gets to start a row whose
 * operation is `retry`.
 */
export function clientMarkingRetries(client: Client): Client {
  return clientWithStartHeader(client, FAIL_FOR_RETRY_HEADER, defaultPayloadConverter.toPayload(true));
}

/** How a run ends that a person stopped (`Scenario.end`). */
const STOPPED = { cancel: 'cancelled', terminate: 'terminated' } as const;

/**
 * The end a row's operation gives a run it stopped (`cancelled`, `terminated`), if `error` is that
 * stop; `null` for any other end, or a row that stops nothing.
 */
export function stoppedEnd(op: RunOperation | undefined, error: Error): string | null {
  const cause = (error as Error & { cause?: Error }).cause;
  if (op?.kind === 'cancel' && cause instanceof CancelledFailure) return STOPPED.cancel;
  if (op?.kind === 'terminate' && cause instanceof TerminatedFailure) return STOPPED.terminate;
  return null;
}

/** The ends a stop gives a run (`Scenario.end`, and `failure` in `SweepSuite.check`): `cancelled`, `terminated`. */
export const STOPPED_ENDS: ReadonlySet<string> = new Set(Object.values(STOPPED));

/** The end of a run its row's operation stopped, as {@link stoppedEnd} names it; `null` for a row that stops nothing. */
export function endOfStop(op: RunOperation | undefined): string | null {
  return op?.kind === 'cancel' || op?.kind === 'terminate' ? STOPPED[op.kind] : null;
}
