/**
 * `crash-safe-agent/worker`: what a worker needs to serve the agent loop with your tools and your model.
 *
 * - `createAgentWorker`: a Temporal worker for `agentWorkflow`, with your tools, MCP servers and model;
 * - `defineTool`: a TypeScript function as a tool, with its effect and its lookup;
 * - `openAiModel` and `ModelProvider`: the model behind the loop;
 * - `McpToolbox`, `loadMcpConfig`: MCP servers as tools;
 * - `ensureSearchAttributes`: the search attributes a run sets while it waits for a person;
 * - `redactSecrets`: a log line with the worker's secrets taken out.
 * - `AGENT_POINTS`: the crash sweep's points of the loop, for `crashSweepPlugin` when a sweep runs the worker.
 */
export {
  createAgentWorker,
  createAgentActivities,
  workflowSources,
  AGENT_POINTS,
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
  type ToolLookupAnswer,
  type ToolLookupQuery,
} from '../activities/define-tool';
export { openAiModel, type ModelProvider, type OpenAiModelOptions } from '../activities/model';
export { refused } from '../activities/errors';
export { McpToolbox, type McpToolboxOptions } from '../activities/mcp-toolbox';
export { loadMcpConfig, type McpConfig } from '../activities/mcp-config';
export { keySecretFromEnv, KEY_SECRET_ENV } from '../common/key';
export { redactSecrets } from '../common/secrets';
