// Not a workflow, just interceptors: `workflow.decided` (and `workflow.waiting`) at the end of an activation.
import { ApplicationFailure, type Payload } from '@temporalio/common';
import { defineSignal, setHandler, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { maybeGetActivator } from '@temporalio/workflow/lib/global-attributes';
import {
  CANCEL_SEEN_MARK,
  FAIL_FOR_RETRY_HEADER,
  FAIL_FOR_RETRY_SIGNAL,
  FAILED_FOR_RETRY,
  FAILED_FOR_RETRY_MARK,
  NO_SIGNALS,
} from '../../common/crash-points';
import { crashPoints } from '../../common/crash-sink';
import {
  ACTIVITY_CAPS_HEADER,
  capActivityOptions,
  capsFromHeaders,
  capTimer,
  type ActivityCaps,
} from './activity-caps';

/**
 * Commands that change nothing a kill could repeat: those that publish what the run waits for (memo,
 * search attributes), and the marker that records which version of the code made the history (a patch).
 */
const BOOKKEEPING = new Set(['modifyWorkflowProperties', 'upsertWorkflowSearchAttributes', 'setPatchMarker']);

/**
 * The signals a workflow waits for, if this activation leaves it blocked on `condition()` with no
 * activity or child workflow in flight (a person is to act); `null` if it is not waiting. Read from
 * the SDK's workflow state (`@temporalio/workflow` 1.24); `test/config-sweep.e2e.test.ts` fails if
 * that state moves.
 */
function waitingFor(): string[] | null {
  const activator = maybeGetActivator() as
    | {
        blockedConditions?: Map<number, unknown>;
        signalHandlers?: Map<string, unknown>;
        completions?: Record<string, Map<number, unknown>>;
      }
    | undefined;
  if (!activator?.blockedConditions || activator.blockedConditions.size === 0) return null;
  const inFlight = ['activity', 'childWorkflowComplete', 'childWorkflowStart'].some(
    (k) => (activator.completions?.[k]?.size ?? 0) > 0,
  );
  return inFlight
    ? null
    : [...(activator.signalHandlers?.keys() ?? [])].filter((s) => s !== FAIL_FOR_RETRY_SIGNAL).sort();
}

/** Fails the run, retryably, when the sweep's engine says so (`FAIL_FOR_RETRY_SIGNAL`). */
function failForRetryOnSignal(): void {
  setHandler(defineSignal<[string]>(FAIL_FOR_RETRY_SIGNAL), (reason) => {
    crashPoints.reached(FAILED_FOR_RETRY_MARK, reason);
    throw ApplicationFailure.retryable(
      `failed by the crash sweep for the run's retry policy: ${reason}`,
      FAILED_FOR_RETRY,
    );
  });
}

/**
 * The workflow-side crash points, for any workflow.
 *
 * `workflow.decided <commands>`: at the end of every activation that made commands (not a query, not
 * a cache eviction), the workflow task has made its commands and the worker has not yet reported them.
 * A task that decides nothing (it only waits, say for a person, and publishes that in its memo) is
 * not a point of its own: a kill there leaves the world as a kill at the point the task passed just
 * before, and whether such a task happens at all depends on when a signal arrives. For the same reason
 * bookkeeping commands are left out of a point's detail.
 *
 * With `waits`, `workflow.waiting <signals>` instead, when the activation leaves the workflow blocked
 * on a condition: the run waits for a person, and a scripted person answers at this point.
 *
 * A run the sweep started carries its activity caps in a start header (`activity-caps.ts`): every
 * activity it schedules gets timeouts and retry waits no longer than those, every timer it starts is
 * no longer than the timer cap, and its children and its continued run carry the header on. A run without the header is not touched.
 *
 * A run started with the fail-for-retry header (the engine's, for rows whose operation is `retry`)
 * fails, retryably, when it gets the engine's fail-for-retry signal: its retry policy starts it over.
 */
export function decisionPoints(waits: boolean): WorkflowInterceptorsFactory {
  return () => {
    let decides = false;
    let caps: ActivityCaps | null = null;
    // The header as the run got it, for its children and its continued run.
    let header: Payload | undefined;
    const carry = <I extends { headers: Record<string, Payload> }>(input: I): I =>
      header ? { ...input, headers: { ...input.headers, [ACTIVITY_CAPS_HEADER]: header } } : input;
    return {
      inbound: [
        {
          execute(input, next) {
            caps = capsFromHeaders(input.headers);
            header = caps ? input.headers[ACTIVITY_CAPS_HEADER] : undefined;
            if (input.headers[FAIL_FOR_RETRY_HEADER]) failForRetryOnSignal();
            return next(input);
          },
        },
      ],
      outbound: [
        {
          scheduleActivity: (input, next) =>
            next(caps ? { ...input, options: capActivityOptions(input.options, caps) } : input),
          scheduleLocalActivity: (input, next) =>
            next(caps ? { ...input, options: capActivityOptions(input.options, caps) } : input),
          startTimer: (input, next) => next(caps ? { ...input, durationMs: capTimer(input.durationMs, caps) } : input),
          startChildWorkflowExecution: (input, next) => next(carry(input)),
          continueAsNew: (input, next) => next(carry(input)),
        },
      ],
      internals: [
        {
          activate(input, next) {
            const jobs = input.activation.jobs ?? [];
            decides = jobs.some((job) => !job.queryWorkflow && !job.removeFromCache);
            if (jobs.some((job) => job.cancelWorkflow)) crashPoints.reached(CANCEL_SEEN_MARK, '');
            return next(input);
          },
          concludeActivation(input, next) {
            if (!decides) return next(input);
            const kinds = input.commands
              .map((c) => Object.keys(c).find((k) => k !== 'userMetadata') ?? '?')
              .filter((k) => !BOOKKEEPING.has(k));
            const signals = waits ? waitingFor() : null;
            if (signals) crashPoints.reached('workflow.waiting', [signals.join(',') || NO_SIGNALS, ...kinds].join(' '));
            else if (kinds.length > 0) crashPoints.reached('workflow.decided', kinds.join(','));
            return next(input);
          },
        },
      ],
    };
  };
}

/** Without `workflow.waiting`: `workflow.decided` only, for workers whose waits have points of their own (the agent's). */
export const interceptors = decisionPoints(false);
