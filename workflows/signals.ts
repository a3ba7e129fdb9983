// The signals, Updates and query a run answers: approve and resolve (each as a signal and as an Update), pending.
import type { UpdateDefinition } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate, setHandler } from '@temporalio/workflow';
import type { AnswerTaken, ApproveSignal, DecisionTaken, PendingState, ResolveSignal } from './types';

export type { AnswerTaken, ApproveSignal, DecisionTaken, ResolveSignal };

/**
 * The patch that made both signals read their input exactly (`signal-input.ts`): a run started before
 * it takes decisions and answers as it did then, so its history replays.
 */
export const SIGNAL_INPUT_PATCH = 'signals-read-exactly';

/**
 * The patch that bounded what a person can make a run do and keep (`signal-input.ts`): each field
 * within its cap, refusals kept as a count and the newest few, a decision for a call that does not
 * wait yet taken only with that call's digest, and few such decisions or answers held. A run started
 * before it goes on as it did then, so its history replays.
 */
export const SIGNALS_BOUNDED_PATCH = 'signals-bounded';

/**
 * Approve or deny a waiting call. A decision for a call that is not waiting is kept until it is; the
 * first decision wins. Its input is read exactly (`readDecision`); anything else is refused.
 */
export const approveSignal = defineSignal<[ApproveSignal]>('approve');
/** Answer an open question about a call whose outcome is unknown. Its input is read exactly (`readAnswer`). */
export const resolveSignal = defineSignal<[ResolveSignal]>('resolve');
/**
 * The same decision as an Update: the run checks it in a validator and answers at once, `taken` or
 * refused with the reason. A refused Update changes nothing and leaves no event in the run's history
 * (the refusal is the sender's, not the run's to keep). Runs started before the signals' caps
 * (`SIGNALS_BOUNDED_PATCH`) take only the signal.
 */
export const approveUpdate = defineUpdate<DecisionTaken, [ApproveSignal]>('approve');
/** The same answer as an Update, checked in a validator: taken, or refused at once with the reason and no event. */
export const resolveUpdate = defineUpdate<AnswerTaken, [ResolveSignal]>('resolve');
/**
 * Installs an Update whose validator refuses what `judge` refuses (the sender hears why; no event, nothing
 * kept) and whose handler takes the rest with `take`, answering at once. The handler judges again, in
 * case the run's state moved between the two.
 */
export function setJudgedUpdate<T, A, J extends object>(
  update: UpdateDefinition<T, [A]>,
  judge: (value: unknown) => J | { refused: string },
  take: (judged: J) => T,
): void {
  const judged = (value: unknown): J => {
    const j = judge(value);
    if ('refused' in j) throw new Error(j.refused);
    return j;
  };
  setHandler(update, (value: A) => take(judged(value)), { validator: (value: A) => void judged(value) });
}

/** The memo field where a run publishes what it waits for (a `WaitingState`), readable with no worker alive. */
export const WAITING_MEMO = 'waiting';
/** Waiting approvals, open questions, and the rungs used so far. */
export const pendingQuery = defineQuery<PendingState>('pending');
