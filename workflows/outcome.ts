// How one tool activity ended: a result, a refusal, or an outcome nobody knows.
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import type { Attempt } from './ladder';
import type { ToolOutput, ToolResponse } from './types';

export type { Attempt };

/**
 * The failure types of a call that never reached its receiver (the connection was refused), as
 * `activities/errors.ts` and `activities/mcp-toolbox.ts` name them.
 */
export const NOT_SENT_TYPES: ReadonlySet<string> = new Set(['ReceiverUnreachable', 'ToolServerUnreachable']);

/**
 * The failure type of a first attempt that found an earlier execution of the run had sent the call
 * and never learned how it ended (`activities/tool-call.ts`); its details say when that was first sent.
 * Also of an attempt the server started again of a call allowed one try (an operator's pause), whose
 * attempt before may have acted: no details.
 */
export const EARLIER_UNKNOWN_TYPE = 'EarlierAttemptUnknown';

/**
 * The failure type of a call whose receiver holds its key for another request (`tracker/client.ts`):
 * the ladder asks a person, showing both.
 */
export const KEY_CONFLICT_TYPE = 'KeyConflict';

/** Runs one tool activity and classifies how it ended; errors other than activity failures propagate. */
export async function attemptTool(run: () => Promise<ToolResponse>): Promise<Attempt> {
  try {
    return { kind: 'ok', response: await run() };
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    const cause = err.cause;
    if (cause instanceof ApplicationFailure && cause.type === EARLIER_UNKNOWN_TYPE) {
      const sentAt = (cause.details?.[0] as { sentAt?: unknown } | undefined)?.sentAt;
      return { kind: 'unknown', reason: cause.message, ...(typeof sentAt === 'number' ? { sentAt } : {}) };
    }
    if (cause instanceof ApplicationFailure && cause.nonRetryable && cause.type === KEY_CONFLICT_TYPE)
      return { kind: 'conflict', reason: cause.message };
    if (cause instanceof ApplicationFailure && cause.nonRetryable)
      return NOT_SENT_TYPES.has(cause.type ?? '')
        ? { kind: 'not-sent', reason: cause.message }
        : { kind: 'refused', message: cause.message };
    if (cause instanceof TimeoutFailure) return { kind: 'unknown', reason: `attempt timed out (${cause.timeoutType})` };
    return { kind: 'unknown', reason: cause?.message ?? err.message };
  }
}

/**
 * The text of an output where no payload store is in play (`keyedActivities`, whose activities return
 * values, not texts; the sweep's designs, whose tracker answers small): a stored one there is a bug.
 */
export function inlineText(output: ToolOutput): string {
  if (typeof output === 'string') return output;
  throw ApplicationFailure.nonRetryable(
    `an output of ${output.bytes} bytes was kept in the payload store where only inline outputs are read`,
    'StoredOutputUnexpected',
  );
}
