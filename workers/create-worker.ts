import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import OpenAI from 'openai';
import { createActivities } from '../activities';
import type { McpToolbox } from '../activities/mcp-toolbox';
import { crashPoint, type PointName } from '../common/crash-points';

/** Options of {@link createAgentWorker}. */
export interface AgentWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue: string;
  trackerUrl: string;
  openaiBaseUrl: string;
  openaiApiKey: string;
  model: string;
  /** The MCP servers runs may use (see `mcpServers` of the agent's input). Default none. The caller closes it. */
  mcp?: McpToolbox;
  /** A pre-built workflow bundle (saves a few seconds per worker); default: bundle `workflows/` now. */
  workflowBundle?: { code: string };
  /** Extra worker options, e.g. the crash sweep's cache and concurrency settings. */
  tuning?: Partial<WorkerOptions>;
}

/** Where the workflow code and its interceptors live, for bundling. */
export const WORKFLOWS_PATH = require.resolve('../workflows');
export const WORKFLOW_INTERCEPTORS = [require.resolve('../workflows/interceptors')];

/** Builds a worker that serves the agent workflow and its activities. */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const openai = new OpenAI({ baseURL: options.openaiBaseUrl, apiKey: options.openaiApiKey, maxRetries: 0 });
  const code = options.workflowBundle
    ? { workflowBundle: options.workflowBundle }
    : { workflowsPath: WORKFLOWS_PATH, interceptors: { workflowModules: WORKFLOW_INTERCEPTORS } };
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue,
    ...code,
    activities: createActivities({ trackerUrl: options.trackerUrl, openai, model: options.model, mcp: options.mcp }),
    sinks: {
      crashPoints: {
        reached: {
          // Awaited before the workflow task is reported, so a harness can park a decided task here.
          fn: (info, name: string, detail: string) => crashPoint(name as PointName, { workflowId: info.workflowId, detail }),
          callDuringReplay: false,
        },
      },
    },
    ...options.tuning,
  });
}
