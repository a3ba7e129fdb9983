// The agent's worker: its workflows, activities and the crash-sweep plugin's decision points, shared by npm run worker, the tests and the sweep.
import { NativeConnection, Worker, type ActivityInterceptorsFactory, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';
import { ToolRegistry, type AnyTool } from '../activities/define-tool';
import type { McpToolbox } from '../activities/mcp-toolbox';
import { openAiModel, type ModelProvider } from '../activities/model';
import { registerSecrets } from '../common/secrets';
import { redactingActivities } from '../activities/redaction';
import { crashSweepPlugin, workflowInterceptorModules, type CrashSweepPluginOptions } from '../sweep/plugin';

/** Options of {@link createAgentWorker}. */
export interface AgentWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue: string;
  /** The tools defined in TypeScript (`defineTool`) that runs may name in `AgentInput.tools`. Default none. */
  tools?: readonly AnyTool[];
  /** The model runs ask, if not an OpenAI-compatible endpoint (`openaiBaseUrl`, `model`). */
  modelProvider?: ModelProvider;
  /** An OpenAI-compatible endpoint's base URL, its key and the model name (unless a run names one); not with `modelProvider`. */
  openaiBaseUrl?: string;
  openaiApiKey?: string;
  model?: string;
  /** The MCP servers runs may use (see `mcpServers` of the agent's input). Default none. The caller closes it. */
  mcp?: McpToolbox;
  /** The tracker of the built-in tracker tools (the triage agent's); needed only by runs that use them. */
  trackerUrl?: string;
  /** The tracker's bearer token, if it requires one (`TRACKER_TOKEN`). */
  trackerToken?: string;
  /** A pre-built workflow bundle (saves a few seconds per worker); default: bundle `workflows/` now. */
  workflowBundle?: { code: string };
  /** The name the server records for the tasks this worker starts. Default: the SDK's `pid@host`. */
  identity?: string;
  /** Activity interceptors (a crash harness watches for activities that outlive their timeout). Default none. */
  activityInterceptors?: ActivityInterceptorsFactory[];
  /** How payloads are stored: the payload codec when history is to be encrypted. Default plain JSON. */
  dataConverter?: WorkerOptions['dataConverter'];
  /** Extra worker options, e.g. the crash sweep's cache and concurrency settings. */
  tuning?: Partial<WorkerOptions>;
}

/**
 * Where the workflow code and its interceptors live, for bundling. Resolved when asked, not on import,
 * so that a worker compiled to one JavaScript file with a pre-built bundle never looks for the sources.
 */
export function workflowSources(): { workflowsPath: string; interceptorModules: string[] } {
  return {
    workflowsPath: require.resolve('../workflows'),
    interceptorModules: workflowInterceptorModules(AGENT_POINTS),
  };
}

/**
 * The crash-sweep plugin's points that the agent's workers record: `workflow.decided` only. The
 * agent's activities mark their own points (`model.started`, `tool.started`, `tracker.accepted`...),
 * which name the tool call a point belongs to; the plugin's activity and HTTP points would mark the
 * same boundaries again under other names. Outside a sweep nothing listens, and a point costs one call.
 */
export const AGENT_POINTS: CrashSweepPluginOptions = { activities: false, http: false, waits: false };

/** What the agent's activities are made of: a worker's options without the worker. */
export type AgentActivitiesOptions = Pick<
  AgentWorkerOptions,
  'tools' | 'modelProvider' | 'openaiBaseUrl' | 'openaiApiKey' | 'model' | 'mcp' | 'trackerUrl' | 'trackerToken'
>;

/**
 * The agent's activities, for a worker you build yourself (or a crash-sweep config's `activities`):
 * your tools, MCP servers and model, with every secret the options hold kept out of history.
 */
export function createAgentActivities(options: AgentActivitiesOptions) {
  // Nothing the worker holds in secret may reach history: its tokens, its model key, its MCP secrets.
  registerSecrets(options.trackerToken, options.openaiApiKey, ...(options.mcp?.config.secrets ?? []));
  return redactingActivities(
    createActivities({
      trackerUrl: options.trackerUrl,
      trackerToken: options.trackerToken,
      model: modelOf(options),
      mcp: options.mcp,
      tools: new ToolRegistry(options.tools ?? []),
    }),
  );
}

/** The model of a worker's options: the provider given, or the OpenAI-compatible endpoint named. */
function modelOf(options: AgentActivitiesOptions): ModelProvider {
  if (options.modelProvider) {
    if (options.openaiBaseUrl) throw new Error('give createAgentWorker a modelProvider or an openaiBaseUrl, not both');
    return options.modelProvider;
  }
  if (!options.openaiBaseUrl || !options.model)
    throw new Error('createAgentWorker needs a model: a modelProvider, or openaiBaseUrl and model');
  return openAiModel({
    baseURL: options.openaiBaseUrl,
    apiKey: options.openaiApiKey ?? 'no-key',
    model: options.model,
  });
}

/**
 * Builds a worker that serves the agent workflow and its activities: your tools (`tools`), your
 * MCP servers (`mcp`), your model (`modelProvider`, or an OpenAI-compatible endpoint).
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const activities = createAgentActivities(options);
  if (options.workflowBundle && options.dataConverter?.failureConverterPath)
    throw new Error(
      'a pre-built workflow bundle carries its own failure converter: build it with bundleWorkflowCode({ failureConverterPath }) ' +
        'and pass no failureConverterPath, or let the worker bundle the workflows (no workflowBundle)',
    );
  const sources = options.workflowBundle ? null : workflowSources();
  const code = sources
    ? { workflowsPath: sources.workflowsPath, interceptors: { activity: options.activityInterceptors } }
    : { workflowBundle: options.workflowBundle, interceptors: { activity: options.activityInterceptors } };
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue,
    ...(options.identity ? { identity: options.identity } : {}),
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    ...code,
    activities,
    plugins: [crashSweepPlugin(AGENT_POINTS)],
    ...options.tuning,
  });
}
