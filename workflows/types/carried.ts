// What one run of a chain hands to the next when it continues as new.

import type { ToolSpec } from '../tools';
import type { CallRecord } from './calls';
import type { ChatMessage, ConversationRef } from './conversation';
import type { ApproveSignal, RefusedAnswer, RefusedDecision, ResolveSignal } from './waits';

/** What the approval gate hands to the next run of a chain. */
export interface ApprovalsState {
  /** Every decision so far, including those for calls not yet waiting: the first decision on a call wins. */
  decisions: ApproveSignal[];
  requested: number;
  /** Decisions refused so far (absent in the state of a run older than the signals' checks). */
  refused?: RefusedDecision[];
  /** How many decisions were refused in all (since the caps: `refused` keeps only the newest). */
  refusedCount?: number;
  /** Calls decided before they waited (since the caps: each decision then named its call's digest). */
  early?: string[];
}

/** What the person's questions hand to the next run of a chain. */
export interface QuestionsState {
  asked: number;
  /** Questions asked about each call, as `[callId, count]`. */
  askedAbout: Array<[string, number]>;
  /** Answers to questions not asked yet. */
  early: ResolveSignal[];
  refused: RefusedAnswer[];
  /** How many answers were refused in all (since the caps: `refused` keeps only the newest). */
  refusedCount?: number;
}

/** What one run of an agent's chain hands to the next when it continues as new, between two turns. */
export interface CarriedState {
  /** Model replies so far. */
  turns: number;
  /**
   * The conversation by reference (`prefix` in the payload store, the rest inline): what a chain
   * carries since long runs, so a continue-as-new input stays small.
   */
  conversation?: ConversationRef;
  /** UTF-8 bytes of the whole conversation so far (a stored output counted whole), against `maxConversationBytes`. */
  conversationBytes?: number;
  /** The whole conversation, as a chain carried it before `conversation`. */
  messages?: ChatMessage[];
  /** Every call so far; an output over the store's threshold is a reference. */
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
