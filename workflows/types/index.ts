/** Types shared by the agent workflow, its activities and its clients, by kind. Types only: no runtime code. */
export type {
  ChatMessage,
  ToolCall,
  StoredRef,
  StoredText,
  ToolOutput,
  KeptMessage,
  ConversationRef,
} from './conversation';
export type { RunTimeouts, AgentInput, AgentResult } from './run';
export type { Rung, CallStatus, CallRecord } from './calls';
export type {
  OpenItem,
  WaitingState,
  RefusedAnswer,
  RefusedDecision,
  PendingState,
  ApproveSignal,
  ResolveSignal,
  DecisionTaken,
  AnswerTaken,
} from './waits';
export type { ApprovalsState, QuestionsState, CarriedState } from './carried';
export type {
  ModelRequest,
  ModelCallRequest,
  RunExecution,
  ModelReply,
  ToolRequest,
  ListToolsRequest,
  ToolResponse,
  LookupResponse,
} from './activities';
