/** Types shared by the agent workflow, its activities and its clients. Types only: no runtime code. */
import type { ApproveSignal, ResolveSignal } from './signals';
import type { ToolSpec } from './tools';

/** An OpenAI-format chat message as the loop keeps it in history. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

/** One tool call of a model reply; `id` is what the idempotency key is made from. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Timeouts and retry pacing of a run's activities. The defaults suit a real model and tracker. */
export interface RunTimeouts {
  /** Start-to-close timeout of one model call. Default 60 s. */
  modelMs?: number;
  /** Start-to-close timeout of one tool call or lookup. Default 30 s. */
  toolMs?: number;
  /** Start-to-close timeout of a whole-turn activity (the sweep's "save once per turn" design). Default 120 s. */
  turnMs?: number;
  /** First retry delay of a retried activity; later ones double up to 10x. Default 1 s. */
  retryInitialMs?: number;
  /**
   * Heartbeat timeout of tool calls and lookups: a worker that died mid-call is noticed after this
   * long, however long `toolMs` allows a call to run (long MCP tools). Default none: only `toolMs`.
   */
  heartbeatMs?: number;
}

/** Input of one agent run. */
export interface AgentInput {
  /**
   * Fresh for every run and never reused: the idempotency key of each tool call is made from it and
   * the call id. Not Temporal's runId (it changes on reset and continue-as-new) nor the workflow id
   * (reusable once retention drops the old run).
   */
  runId: string;
  /** What the user asks the agent to do. */
  task: string;
  /** The tracker repository the tools act on. */
  repo: string;
  /** The tracker ignores keys, so a sent key makes no repeat harmless. Default `false`. */
  keyless?: boolean;
  /** Tools that wait for a person's approval before each call, besides those the registry marks. Default none. */
  approve?: string[];
  /**
   * How long a call waits for approval; with no decision by then it is denied, nothing of it runs, and
   * the model is told the approval timed out. Default: no deadline.
   */
  approvalTimeoutMs?: number;
  /**
   * Keep the search attributes `AgentWaiting` and `AgentPendingCalls` up to date. Default `true`; set
   * `false` on a server where they cannot be registered (Temporal's time-skipping test server): the
   * memo still says what the run waits for.
   */
  searchAttributes?: boolean;
  /** Use the lookup rung (ask the receiver whether a call happened). Default `true`. */
  lookup?: boolean;
  /** The model name sent to the provider. Default: the worker's `AGENT_MODEL`. */
  model?: string;
  /** The tracker's base URL. Default: the worker's `TRACKER_URL`. */
  trackerUrl?: string;
  /**
   * How long a receiver keeps a key, until it says otherwise (the tracker's
   * `Idempotency-Key-Retention-Seconds`, learned from its first keyed answer in the run). Default 24 h.
   */
  keyRetentionMs?: number;
  /**
   * MCP servers, by their names in the worker's MCP configuration, whose tools the run uses instead
   * of the built-in tracker tools. Their tools are listed once, at the start, into history. A tool
   * whose schema has a `repo` argument gets the run's `repo`. Default none: the built-in tools.
   */
  mcpServers?: string[];
  /** Give up after this many model replies (over the whole chain of runs). Default 10. */
  maxTurns?: number;
  /**
   * Continue as new (a fresh history, the conversation carried over) after this many model replies
   * in one run, or sooner when the server suggests it (history too long). Default 20.
   */
  turnsPerRun?: number;
  /** Set by the run itself when it continues as new: what the next run of the chain starts from. */
  carried?: CarriedState;
  timeouts?: RunTimeouts;
}

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
  /** The tool result given to the model. */
  result?: string;
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
}

/**
 * What a run waits for, in its memo: readable with `describe` while no worker is alive, so a person
 * can approve or answer then. It is as of the last workflow task the server received.
 */
export interface WaitingState {
  approvals: OpenItem[];
  questions: OpenItem[];
}

/** What the approval gate hands to the next run of a chain. */
export interface ApprovalsState {
  /** Every decision so far, including those for calls not yet waiting: the first decision on a call wins. */
  decisions: ApproveSignal[];
  requested: number;
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

/** An answer from a person that the run did not take, and why. */
export interface RefusedAnswer {
  questionId: string;
  by?: string;
  why: string;
}

/** What the `pending` query returns. */
export interface PendingState {
  runId: string;
  approvals: OpenItem[];
  questions: OpenItem[];
  /** Answers to questions that were not open (already answered, or never asked). */
  refusedAnswers: RefusedAnswer[];
  rungs: Record<string, Rung>;
  questionsAsked: number;
  calls: CallRecord[];
}

/** Result of an agent run. */
export interface AgentResult {
  runId: string;
  answer: string;
  /** Model replies the run used (from history; a repeated call after a crash is counted by the model server). */
  turns: number;
  calls: CallRecord[];
  rungs: Record<string, Rung>;
  /** Questions put to a person ("did it happen?"). */
  questionsAsked: number;
  /** Approvals requested; each call waits for at most one. */
  approvalsRequested: number;
}

/** Input of the model activity. */
export interface ModelRequest {
  runId: string;
  model?: string;
  messages: ChatMessage[];
  tools: Array<{ type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }>;
}

/** What the model activity returns. */
export interface ModelReply {
  /** The reply as it goes into the conversation, tool-call ids included. */
  message: ChatMessage;
  /** Why the model stopped (`stop`, `tool_calls`, `length`, ...): `length` means its tool calls may be cut off. */
  finishReason: string | null;
}

/** Input of a tool activity and of a lookup. */
export interface ToolRequest {
  runId: string;
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  repo: string;
  /** Send the call's key in the `Idempotency-Key` header (built-in tools; an MCP call always carries it in `_meta`). */
  sendKey: boolean;
  trackerUrl?: string;
  /** The MCP server that serves the tool; unset for the built-in tracker tools. */
  server?: string;
  /** For a lookup over MCP: the server's tool that answers whether the call happened. */
  lookupTool?: string;
  /** For a lookup: the call's key may have expired at the receiver, so only a search can tell. */
  keyExpired?: boolean;
  /** Over MCP: the tool changes something without honouring keys, so an unexplained error may hide an effect. */
  errorMayHideEffect?: boolean;
}

/** Input of the activity that lists the tools of a run's MCP servers. */
export interface ListToolsRequest {
  servers: string[];
}

/** A tool activity's result. */
export interface ToolResponse {
  /** The tool result for the model: the receiver's JSON reply. */
  output: string;
  /** Which attempt of the activity produced it (1 on a clean run). */
  attempt: number;
  /** The tracker said it replayed a keyed request rather than acting again. */
  replayed: boolean;
  /** How long the receiver says it keeps keys, when it said so. */
  keyRetentionMs?: number;
}

/** The receiver's answer to "did this call happen?". */
export interface LookupResponse {
  happened: boolean;
  /** What the call returned, when it happened. */
  output?: string;
  /** Not found, but the receiver may still commit a request this long after it arrived. */
  commitDeadlineMs?: number;
}

/** Input of a whole-turn activity (the sweep's "save once per turn" design). */
export interface TurnRequest {
  runId: string;
  repo: string;
  trackerUrl?: string;
  messages: ChatMessage[];
  tools: ModelRequest['tools'];
}

/** What a whole turn adds to the conversation, and the final answer if the model gave one. */
export interface TurnResponse {
  messages: ChatMessage[];
  answer: string | null;
}
