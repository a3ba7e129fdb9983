import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { PendingState } from './types';

/** A person's decision on a call that waits for approval. */
export interface ApproveSignal {
  callId: string;
  approved: boolean;
  /** Who decided, as shown to the model on a denial. */
  by: string;
  reason?: string;
}

/** A person's answer to "did this call happen?", the last rung of the resolution ladder. */
export interface ResolveSignal {
  /** The question this answers (`CALL_ID#N`, as the run lists it); an answer to any other is refused. */
  questionId: string;
  happened: boolean;
  /** What the call returned, if the person knows; passed to the model as the tool result. */
  result?: string;
  by?: string;
}

/** Approve or deny a waiting call. A decision for a call that is not waiting is kept until it is; the first decision wins. */
export const approveSignal = defineSignal<[ApproveSignal]>('approve');
/** Answer an open question about a call whose outcome is unknown. */
export const resolveSignal = defineSignal<[ResolveSignal]>('resolve');
/** The memo field where a run publishes what it waits for (a `WaitingState`), readable with no worker alive. */
export const WAITING_MEMO = 'waiting';
/** Waiting approvals, open questions, and the rungs used so far. */
export const pendingQuery = defineQuery<PendingState>('pending');
