// What a run is given and what it returns.

import type { CallRecord, Rung } from './calls';
import type { CarriedState } from './carried';

/** Timeouts and retry pacing of a run's activities. The defaults suit a real model and tracker. */
export interface RunTimeouts {
  /** Start-to-close timeout of one model call. Default 60 s. */
  modelMs?: number;
  /** Start-to-close timeout of one tool call or lookup. Default 30 s. */
  toolMs?: number;
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
  /** What the user asks the agent to do: the conversation's first user message. */
  task: string;
  /**
   * The system prompt: who the agent is and how it works. Default a short neutral one
   * (`DEFAULT_INSTRUCTIONS`).
   */
  instructions?: string;
  /**
   * Tools registered on the worker with `defineTool`, by name, that the run uses (with those of
   * `mcpServers`). They are listed once, at the start, into history. A run names `tools`, or
   * `mcpServers`, or both: one with neither fails at once (`BadInput`), before anything runs.
   */
  tools?: string[];
  /**
   * What the run acts for, which the model neither sees nor chooses (a customer, an account, a
   * repository): a JSON object every registered tool's `run` and `lookup` get as `ctx.context`, and
   * whose keys an MCP tool's arguments of the same names are filled from (the model does not see them).
   * A run whose `context` is not an object fails at once (`BadInput`), before anything runs.
   */
  context?: Record<string, unknown>;
  /**
   * The receivers of the run's registered tools ignore keys, so a sent key makes no repeat harmless
   * and a lookup cannot ask by key. An MCP server says it of itself. Default `false`.
   */
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
  /**
   * How long a tool call goes on being sent, with backoff, while its receiver refuses connections (a
   * restart, an outage): nothing reaches it, so sending again is safe for any tool. After that the
   * model is told the receiver is down. An MCP server's own `receiverDownMs` wins for its tools.
   * Default 3 minutes.
   */
  receiverDownMs?: number;
  /** Use the lookup rung (ask the receiver whether a call happened). Default `true`. */
  lookup?: boolean;
  /**
   * After a reset or a workflow retry, read what earlier executions of the run did (from their
   * histories) before acting again: a reply an earlier execution got to the same conversation is taken
   * instead of asking the model again, a call an earlier attempt completed is not sent again, and one
   * sent with its outcome unknown goes up the ladder. Default `true`; `false` shows what it prevents.
   */
  earlierExecutions?: boolean;
  /** The model name sent to the provider. Default: the worker's `AGENT_MODEL`. */
  model?: string;
  /**
   * How long a receiver keeps a key, until it says otherwise (the tracker's
   * `Idempotency-Key-Retention-Seconds`, learned from its first keyed answer in the run). Default 24 h.
   */
  keyRetentionMs?: number;
  /**
   * MCP servers, by their names in the worker's MCP configuration, whose tools the run uses (with
   * those of `tools`). Their tools are listed once, at the start, into history. An argument of theirs
   * named as a key of `context` gets the context's value, and the model does not see it.
   */
  mcpServers?: string[];
  /** Give up after this many model replies (over the whole chain of runs). Default 10. */
  maxTurns?: number;
  /**
   * Continue as new (a fresh history, the conversation carried over) after this many model replies
   * in one run, or sooner when the server suggests it (history too long). Default 20.
   */
  turnsPerRun?: number;
  /**
   * The largest conversation, in UTF-8 bytes (a stored output counted whole), the run sends the
   * model: past it the run fails (`ConversationTooLarge`) before asking again. Default 128 MiB.
   */
  maxConversationBytes?: number;
  /** Set by the run itself when it continues as new: what the next run of the chain starts from. */
  carried?: CarriedState;
  timeouts?: RunTimeouts;
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
  /**
   * Set when the calls' outputs were left out of `calls` because, with no payload store, they would
   * have made the result larger than Temporal takes; history still has each.
   */
  outputsLeftOut?: boolean;
}
