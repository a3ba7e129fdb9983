// Where each tool call stands, and which rung of the ladder settled it.

import type { ToolOutput } from './conversation';

/**
 * The rung of the resolution ladder that settled a call: `clean` when its first attempt answered,
 * `repeat` when it was run again because a repeat was harmless, `lookup` when the receiver said
 * whether it happened, `person` when a person did.
 */
export type Rung = 'clean' | 'repeat' | 'lookup' | 'person';

/** Where one tool call stands. */
export type CallStatus = 'waiting-approval' | 'running' | 'asking' | 'done' | 'denied' | 'failed';

/** What the run knows about one tool call. */
export interface CallRecord {
  callId: string;
  tool: string;
  args: unknown;
  status: CallStatus;
  /** Set once the call is settled (done or failed after it ran). */
  rung?: Rung;
  /** Activity executions started for this call (a Temporal retry counts as one more). */
  attempts: number;
  /** The tool result given to the model (a large one where the payload store keeps it). */
  result?: ToolOutput;
}
