/**
 * `crash-safe-agent/worker`: what a worker needs to serve the agent loop with your tools and your model.
 *
 * - `createAgentWorker`: a Temporal worker for `agentWorkflow`, with your tools, MCP servers and model;
 * - `defineTool`: a TypeScript function as a tool, with its effect and its lookup;
 * - `openAiModel` and `ModelProvider`: the model behind the loop;
 * - `McpToolbox`, `loadMcpConfig`: MCP servers as tools;
 * - `ensureSearchAttributes`: the search attributes a run sets while it waits for a person.
 */
export {
  createAgentWorker,
  createAgentActivities,
  workflowSources,
  type AgentWorkerOptions,
  type AgentActivitiesOptions,
} from '../workers/create-worker';
export { ensureSearchAttributes, SearchAttributesError } from '../workers/search-attributes';
export { createActivities, type ActivityConfig, type AgentActivities } from '../activities';
export {
  defineTool,
  ReceiverRefusedError,
  ReceiverUnavailableError,
  type AnyTool,
  type DefinedTool,
  type ToolContext,
  type ToolDefinition,
  type ToolEffect,
  type ToolLookupAnswer,
  type ToolLookupQuery,
} from '../activities/define-tool';
export { openAiModel, type ModelProvider, type OpenAiModelOptions } from '../activities/model';
export { refused } from '../activities/errors';
export { McpToolbox, type McpToolboxOptions } from '../activities/mcp-toolbox';
export { loadMcpConfig, type McpConfig } from '../mcp/config';
export type { ModelRequest, ModelReply, ChatMessage, ToolCall } from '../workflows/types';
