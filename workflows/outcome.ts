import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import type { ToolResponse } from './types';

/** How one attempt at a tool call ended, as far as the workflow can tell. */
export type Attempt =
  | { kind: 'ok'; response: ToolResponse }
  /** The receiver refused the request: nothing happened, and running it again would not help. */
  | { kind: 'refused'; message: string }
  /** The attempt may or may not have taken effect: it timed out, its worker died, or the answer was lost. */
  | { kind: 'unknown'; reason: string };

/** Runs one tool activity and classifies how it ended; errors other than activity failures propagate. */
export async function attemptTool(run: () => Promise<ToolResponse>): Promise<Attempt> {
  try {
    return { kind: 'ok', response: await run() };
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    const cause = err.cause;
    if (cause instanceof ApplicationFailure && cause.nonRetryable) return { kind: 'refused', message: cause.message };
    if (cause instanceof TimeoutFailure) return { kind: 'unknown', reason: `attempt timed out (${cause.timeoutType})` };
    return { kind: 'unknown', reason: cause?.message ?? err.message };
  }
}
