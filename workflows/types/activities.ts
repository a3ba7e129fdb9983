// The contracts of the agent's activities: their inputs and results.

import type { ChatMessage } from './conversation';

/** Input of the model activity. */
export interface ModelRequest {
  runId: string;
  model?: string;
  messages: ChatMessage[];
  tools: Array<{
    type: 'function';
    function: { name: string; description: string; parameters: Record<string, unknown> };
  }>;
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
  /** The receiver honours the call's key: a registered tool's lookup may ask by it (`byKey`). */
  sendKey: boolean;
  /** The MCP server that serves the tool. */
  server?: string;
  /** A tool registered on the worker with `defineTool`. */
  registered?: boolean;
  /** The run's context (`AgentInput.context`), for a registered tool. */
  context?: Record<string, unknown>;
  /** For a lookup over MCP: the server's tool that answers whether the call happened. */
  lookupTool?: string;
  /** For a lookup: the call's key may have expired at the receiver, so only a search can tell. */
  keyExpired?: boolean;
  /** Over MCP: the tool changes something without honouring keys, so an unexplained error may hide an effect. */
  errorMayHideEffect?: boolean;
}

/** Input of the activity that lists the tools of a run's MCP servers. */
export interface ListToolsRequest {
  /** MCP servers, by their names in the worker's MCP configuration. */
  servers: string[];
  /** Tools registered on the worker (`defineTool`), by name. */
  tools?: string[];
  /** The keys of the run's context: an MCP tool's arguments of these names are the run's to fill in. */
  contextKeys?: string[];
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
