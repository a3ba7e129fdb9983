// What one run of a chain hands to the next when it continues as new.

import type { ToolSpec } from '../tools';
import type { CallRecord } from './calls';
import type { ChatMessage } from './conversation';
import type { ApproveSignal, RefusedAnswer, RefusedDecision, ResolveSignal } from './waits';

/** What the approval gate hands to the next run of a chain. */
export interface ApprovalsState {
  /** Every decision so far, including those for calls not yet waiting: the first decision on a call wins. */
  decisions: ApproveSignal[];
  requested: number;
  /** Decisions refused so far (absent in the state of a run older than the signals' checks). */
  refused?: RefusedDecision[];
}

/** What the person's questions hand to the next run of a chain. */
export interface QuestionsState {
  asked: number;
  /** Questions asked about each call, as `[callId, count]`. */
  askedAbout: Array<[string, number]>;
  /** Answers to questions not asked yet. */
  early: ResolveSignal[];
  refused: RefusedAnswer[];
}

/** What one run of an agent's chain hands to the next when it continues as new, between two turns. */
export interface CarriedState {
  /** Model replies so far. */
  turns: number;
  messages: ChatMessage[];
  calls: CallRecord[];
  /** The MCP tools listed by the first run, so the conversation keeps the same tools. */
  specs?: ToolSpec[];
  /** Every call identity given so far. */
  callIds: string[];
  /** How long each receiver said it keeps keys, as `[receiver, ms]`. */
  retention: Array<[string, number]>;
  approvals: ApprovalsState;
  questions: QuestionsState;
}
