// What a run waits for from a person, the signals that answer it, and the pending query.

import type { CallRecord, Rung } from './calls';

/** A person's decision on a call that waits for approval. */
export interface ApproveSignal {
  callId: string;
  approved: boolean;
  /** Who decided, as shown to the model on a denial. */
  by: string;
  reason?: string;
  /**
   * The digest of the call's tool and arguments, as the approval request shows it (`callDigest`). An
   * approval that names a digest approves only the call with those arguments; one naming another is refused.
   */
  digest?: string;
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

/**
 * What the `approve` Update returns once the run took the decision: the call is decided now (it was
 * waiting), or the decision is held until the call waits (it named that call's digest).
 */
export interface DecisionTaken {
  callId: string;
  approved: boolean;
  taken: 'decided' | 'held until the call waits';
}

/** What the `resolve` Update returns once the run took the answer. */
export interface AnswerTaken {
  questionId: string;
  happened: boolean;
  taken: 'answered' | 'held until the question is asked';
}

/** A call waiting for a person: an approval, or a question whether it happened. */
export interface OpenItem {
  callId: string;
  /** For a question: its id, which the answer must name (`CALL_ID#N`, the Nth question about the call). */
  questionId?: string;
  tool: string;
  args: unknown;
  /** For a question: why the outcome is unknown. */
  reason?: string;
  /** For an approval: the digest of the tool and its arguments, which an approval may name. */
  digest?: string;
}

/**
 * What a run waits for, in its memo: readable with `describe` while no worker is alive, so a person
 * can approve or answer then. It is as of the last workflow task the server received.
 */
export interface WaitingState {
  approvals: OpenItem[];
  questions: OpenItem[];
}

/** An answer from a person that the run did not take, and why. */
export interface RefusedAnswer {
  /** The question it named (as sent, when it named none that could be one). */
  questionId: string;
  by?: string;
  why: string;
}

/** An approval or denial that the run did not take, and why. */
export interface RefusedDecision {
  /** The call it named (as sent, when it named none that could be one). */
  callId: string;
  by?: string;
  why: string;
}

/** What the `pending` query returns. */
export interface PendingState {
  runId: string;
  approvals: OpenItem[];
  questions: OpenItem[];
  /** Answers to questions that were not open (already answered, or never asked): the newest. */
  refusedAnswers: RefusedAnswer[];
  /** Approvals and denials that were not taken (malformed, a second decision, another digest): the newest. */
  refusedDecisions: RefusedDecision[];
  /** How many of each were refused in all (the lists keep the newest `REFUSALS_KEPT`). */
  refusedCounts?: { decisions: number; answers: number };
  rungs: Record<string, Rung>;
  questionsAsked: number;
  calls: CallRecord[];
}
