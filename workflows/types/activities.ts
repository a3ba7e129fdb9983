// The contracts of the agent's activities: their inputs and results.

import type { ChatMessage, ConversationRef, StoredRef, ToolOutput } from './conversation';

/** A model request as a provider gets it: the whole conversation. */
export interface ModelRequest {
  runId: string;
  model?: string;
  messages: ChatMessage[];
  tools: Array<{
    type: 'function';
    function: { name: string; description: string; parameters: Record<string, unknown> };
  }>;
}

/** Which execution of a run asks the model: one reset or retried has earlier ones (see `ModelCallRequest`). */
export interface RunExecution {
  /** This execution's Temporal run id. */
  runId: string;
  /** The run id recorded when the run started, which a reset keeps. */
  originalExecutionRunId: string;
  /** The workflow's attempt: above 1 for a run its retry policy started over. */
  attempt: number;
}

/**
 * Input of the model activity: the request, and which execution asks. An execution that a reset or a
 * workflow retry started takes the reply an earlier execution got to the same request, from that
 * execution's history, instead of asking the model again: the reply the earlier execution acted on.
 */
export interface ModelCallRequest extends Omit<ModelRequest, 'messages'> {
  /**
   * The conversation by reference (the loop since long runs): the turns the payload store keeps, and
   * the messages added since. The activity rebuilds the whole conversation from it.
   */
  conversation?: ConversationRef;
  /** The whole conversation, as runs before `conversation` sent it (and the sweep's designs still do). */
  messages?: ChatMessage[];
  /** The turn this call answers, from 1. */
  turn?: number;
  execution?: RunExecution;
  /** The run that began this run's chain (`firstExecutionRunId`): what the payload store seals its references for. */
  firstRunId?: string;
}

/** What the model activity returns. */
export interface ModelReply {
  /** The reply as it goes into the conversation, tool-call ids included. */
  message: ChatMessage;
  /** Why the model stopped (`stop`, `tool_calls`, `length`, ...): `length` means its tool calls may be cut off. */
  finishReason: string | null;
  /** The earlier execution of this run whose reply this is: the model was not asked again. */
  fromRunId?: string;
  /**
   * Where the payload store keeps the conversation up to and with this reply, when the worker has a
   * store: the next model call names it instead of sending the conversation again.
   */
  conversation?: StoredRef;
}

/** Input of a tool activity and of a lookup. */
export interface ToolRequest {
  runId: string;
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  /** The run that began this run's chain (`firstExecutionRunId`): what the payload store seals its references for. */
  firstRunId?: string;
  /** The receiver honours the call's key: a registered tool's lookup may ask by it (`byKey`). */
  sendKey: boolean;
  /** The MCP server that serves the tool. */
  server?: string;
  /** A tool registered on the worker with `defineTool`. */
  registered?: boolean;
  /** The run's context (`AgentInput.context`), for a registered tool. */
  context?: Record<string, unknown>;
  /**
   * Set on a call's first attempt in an execution that a reset or a workflow retry started: the tool
   * activity first reads what earlier executions know of the call. An attempt of theirs that completed
   * (or a lookup that found the call) gives its response, and nothing is sent; one sent with its outcome
   * unknown makes this attempt's outcome unknown too, so the ladder goes on (a lookup, or a person),
   * unless sending again is harmless (`harmless`: a tool that only reads or is idempotent, or a key
   * the receiver still holds, counted from the earlier execution's first attempt: `keyLeftMs`, what
   * is left of the key's life counted from now, is set when only the key makes a repeat harmless).
   */
  earlier?: { execution: RunExecution; harmless: boolean; keyLeftMs?: number };
  /** For a lookup over MCP: the server's tool that answers whether the call happened. */
  lookupTool?: string;
  /** For a lookup over MCP: the call's own arguments, which the server matches what it finds against. */
  callArgs?: Record<string, unknown>;
  /** For a lookup: the call's key may have expired at the receiver, so only a search can tell. */
  keyExpired?: boolean;
  /** Over MCP: the tool changes something without honouring keys, so an unexplained error may hide an effect. */
  errorMayHideEffect?: boolean;
  /**
   * The digest (`callDigest`) of the tool and arguments a person approved, for a call that waited for
   * approval: a registered tool that needs approval is refused without it.
   */
  approved?: string;
}

/** Input of the activity that lists the tools of a run's MCP servers. */
export interface ListToolsRequest {
  /** MCP servers, by their names in the worker's MCP configuration. */
  servers: string[];
  /** Tools registered on the worker (`defineTool`), by name. */
  tools?: string[];
  /** The keys of the run's context: an MCP tool's arguments of these names are the run's to fill in. */
  contextKeys?: string[];
  /** The run's context, for the registered tools to check (`checkContext`) before anything runs. */
  context?: Record<string, unknown>;
}

/** A tool activity's result. */
export interface ToolResponse {
  /** The tool result for the model: the receiver's reply, or where the payload store keeps it. */
  output: ToolOutput;
  /** Which attempt of the activity produced it (1 on a clean run). */
  attempt: number;
  /** The tracker said it replayed a keyed request rather than acting again. */
  replayed: boolean;
  /** How long the receiver says it keeps keys, when it said so. */
  keyRetentionMs?: number;
  /** The earlier execution of this run whose attempt gave this response: nothing was sent again. */
  fromRunId?: string;
}

/** The receiver's answer to "did this call happen?". */
export interface LookupResponse {
  happened: boolean;
  /** What the call returned, when it happened. */
  output?: ToolOutput;
  /** Not found, but the receiver may still commit a request this long after it arrived. */
  commitDeadlineMs?: number;
  /**
   * With `happened: false`: the receiver holds a record under the call's key (or its trace) that is not
   * this call's; what it holds, so a person decides.
   */
  mismatch?: string;
}
