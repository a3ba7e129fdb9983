// The agent's worker: its workflows, activities and the crash-sweep plugin's decision points, shared by npm run worker, the tests and the sweep.
import { NativeConnection, Worker, type ActivityInterceptorsFactory, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';
import { ToolRegistry, type AnyTool } from '../activities/define-tool';
import type { McpToolbox } from '../activities/mcp-toolbox';
import { openAiModel, type ModelProvider } from '../activities/model';
import { unknownKeys } from '../common/fields';
import { registerSecrets } from '../common/secrets';
import { redactingActivities } from '../activities/redaction';
import { workflowInterceptorModules, type CrashSweepPluginOptions } from '../sweep/plugin';
import type { PayloadStore } from '../store/payload-store';
import { checkExternalStorage, loopPayloadStore } from '../store/external-storage';

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
  /**
   * Secrets your tools hold (tokens, keys): kept out of every result and error the worker's activities
   * hand to Temporal, and so out of history, as the model key and the MCP servers' secrets are. Default none.
   */
  secrets?: ReadonlyArray<string | undefined>;
  /**
   * Activities of your own to serve beside the loop's (those of your other workflows, say); a name the
   * loop uses is refused. What they return and throw is kept free of the worker's secrets too.
   */
  activities?: Record<string, (...args: never[]) => Promise<unknown>>;
  /**
   * Your own workflows module, to serve your workflows beside the loop: it must export `agentWorkflow`
   * (`export { agentWorkflow } from 'crash-safe-agent/workflow'`). Default: the loop alone.
   */
  workflowsPath?: string;
  /** A pre-built workflow bundle (saves a few seconds per worker); default: bundle the workflows now. */
  workflowBundle?: { code: string };
  /** The name the server records for the tasks this worker starts. Default: the SDK's `pid@host`. */
  identity?: string;
  /**
   * Worker plugins: the crash sweep's (`crashSweepPlugin(AGENT_POINTS)` from `crash-safe-agent/plugin`)
   * when a sweep runs this worker, or any of your own. Default none.
   */
  plugins?: WorkerOptions['plugins'];
  /** Activity interceptors (a crash harness watches for activities that outlive their timeout). Default none. */
  activityInterceptors?: ActivityInterceptorsFactory[];
  /**
   * How payloads are stored: the payload codec when history is to be encrypted; `externalStorage`
   * (Temporal's External Storage, with a driver such as the local one or S3's) for long runs and
   * large outputs: payloads over its threshold go to the driver, and the loop keeps large tool
   * outputs and the conversation's turns there too, so history grows with the work, not its square.
   * Default plain JSON, all in history.
   */
  dataConverter?: WorkerOptions['dataConverter'];
  /** The most of one MCP tool's output a run keeps (a `defineTool` tool says its own). Default 1 MiB. */
  maxOutputBytes?: number;
  /**
   * The secret each call's idempotency key is derived under (HMAC-SHA-256 over the run id and the
   * call id), so nobody who reads a run's history can compute a key and use it first at a receiver.
   * Give every worker of the task queue the same one (`AGENT_KEY_SECRET`), and keep it: a worker with
   * another secret computes other keys for the same calls. Default none: the plain key.
   */
  keySecret?: string;
  /** Extra worker options, e.g. the crash sweep's cache and concurrency settings. */
  tuning?: Partial<WorkerOptions>;
}

/**
 * Where the workflow code and its interceptors live, for bundling. Resolved when asked, not on import,
 * so that a worker compiled to one JavaScript file with a pre-built bundle never looks for the sources.
 */
export function workflowSources(workflowsPath?: string): { workflowsPath: string; interceptorModules: string[] } {
  return {
    workflowsPath: workflowsPath ?? require.resolve('../workflows'),
    interceptorModules: workflowInterceptorModules(AGENT_POINTS),
  };
}

/**
 * The crash-sweep plugin's points that the agent's workers record: `workflow.decided` only. The
 * agent's activities mark their own points (`model.started`, `tool.started`, `tracker.accepted`...),
 * which name the tool call a point belongs to; the plugin's activity and HTTP points would mark the
 * same boundaries again under other names. A sweep's worker passes the plugin with these
 * (`AgentWorkerOptions.plugins`); a worker in production has none.
 */
export const AGENT_POINTS: CrashSweepPluginOptions = { activities: false, http: false, waits: false };

/** What the agent's activities are made of: a worker's options without the worker. */
export type AgentActivitiesOptions = Pick<
  AgentWorkerOptions,
  | 'tools'
  | 'modelProvider'
  | 'openaiBaseUrl'
  | 'openaiApiKey'
  | 'model'
  | 'mcp'
  | 'secrets'
  | 'dataConverter'
  | 'maxOutputBytes'
  | 'keySecret'
>;

/**
 * The agent's activities, for a worker you build yourself (or a crash-sweep config's `activities`):
 * your tools, MCP servers and model, with every secret the options hold kept out of history.
 */
export function createAgentActivities(options: AgentActivitiesOptions) {
  // Nothing the worker holds in secret may reach history: its tools' tokens, its model key, its MCP secrets.
  registerSecrets(
    ...(options.secrets ?? []),
    options.openaiApiKey,
    options.keySecret,
    ...(options.mcp?.config.secrets ?? []),
  );
  return redactingActivities(
    createActivities({
      model: modelOf(options),
      mcp: options.mcp,
      tools: new ToolRegistry(options.tools ?? []),
      store: payloadStoreOf(options.dataConverter, options.keySecret),
      ...(options.maxOutputBytes ? { maxOutputBytes: options.maxOutputBytes } : {}),
      ...(options.keySecret ? { keySecret: options.keySecret } : {}),
    }),
  );
}

/** The loop's payload store: the data converter's External Storage, sealed by its codecs; none without it. */
function payloadStoreOf(
  converter: AgentActivitiesOptions['dataConverter'],
  keySecret: string | undefined,
): PayloadStore | undefined {
  if (!converter?.externalStorage) return undefined;
  checkExternalStorage();
  return loopPayloadStore(converter.externalStorage, converter.payloadCodecs ?? [], keySecret);
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
/** Every option of {@link createAgentWorker}: one given from plain JavaScript that is not here is refused. */
const WORKER_OPTIONS = {
  connection: true,
  namespace: true,
  taskQueue: true,
  tools: true,
  modelProvider: true,
  openaiBaseUrl: true,
  openaiApiKey: true,
  model: true,
  mcp: true,
  secrets: true,
  activities: true,
  workflowsPath: true,
  workflowBundle: true,
  identity: true,
  plugins: true,
  activityInterceptors: true,
  dataConverter: true,
  maxOutputBytes: true,
  keySecret: true,
  tuning: true,
} satisfies Record<keyof AgentWorkerOptions, true>;

export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const unknown = unknownKeys(options, Object.keys(WORKER_OPTIONS), 'an option of createAgentWorker');
  if (unknown.length > 0) throw new TypeError(unknown.join('; '));
  const loop = createAgentActivities(options);
  const clash = Object.keys(options.activities ?? {}).filter((name) => name in loop);
  if (clash.length > 0)
    throw new Error(
      `activities ${clash.join(', ')}: the agent loop's own activities have these names; give yours others`,
    );
  const activities = { ...loop, ...redactingActivities(options.activities ?? {}) };
  if (options.workflowBundle && options.workflowsPath)
    throw new Error('give createAgentWorker a workflowsPath or a workflowBundle, not both');
  if (options.workflowBundle && options.dataConverter?.failureConverterPath)
    throw new Error(
      'a pre-built workflow bundle carries its own failure converter: build it with bundleWorkflowCode({ failureConverterPath }) ' +
        'and pass no failureConverterPath, or let the worker bundle the workflows (no workflowBundle)',
    );
  const sources = options.workflowBundle ? null : workflowSources(options.workflowsPath);
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
    ...(options.plugins ? { plugins: options.plugins } : {}),
    ...options.tuning,
  });
}
