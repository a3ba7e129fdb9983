// What every agent activity shares: the worker's configuration, where a point is reached, the
// heartbeat, the registered tools and the MCP servers.
import { Context } from '@temporalio/activity';
import { crashPoint, type PointName } from '../common/crash-points';
import { key } from '../common/key';
import { refused } from './errors';
import type { ToolRegistry } from './define-tool';
import type { McpToolbox } from './mcp-toolbox';
import type { ModelProvider } from './model';
import type { PayloadStore, StoreScope } from '../store/payload-store';
import type { RunChain } from '../store/reference-seal';
import { DEFAULT_MAX_OUTPUT_BYTES, type OutputLimit } from './tool-output';

/** What the activities need from the worker's environment. */
export interface ActivityConfig {
  /** The model every run asks (`openAiModel(...)` for an OpenAI-compatible endpoint). */
  model: ModelProvider;
  /** The MCP servers this worker can reach (`MCP_CONFIG`). Default none. */
  mcp?: McpToolbox;
  /** The tools defined in TypeScript (`defineTool`) that runs may name in `AgentInput.tools`. Default none. */
  tools?: ToolRegistry;
  /**
   * Where large tool outputs and the conversation's turns are kept instead of history: the worker's
   * External Storage. Default none: every output and the whole conversation travel in history.
   */
  store?: PayloadStore;
  /** The most of one MCP tool's output a run keeps (a registered tool says its own). Default 1 MiB. */
  maxOutputBytes?: number;
  /**
   * The secret each call's key is derived under (`key(run, call, secret)`), so nobody who reads a
   * run's history can compute its keys and use one first at a receiver. Default none: the plain key.
   */
  keySecret?: string;
}

/** How much of a call's output the run keeps: the registered tool's own cap, or the worker's for MCP tools. */
export function outputLimitOf(config: ActivityConfig, req: { tool: string; registered?: boolean }): OutputLimit {
  if (req.registered && config.tools) return config.tools.outputLimit(req.tool);
  return { maxOutputBytes: config.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES, overflow: 'cut' };
}

/** Marks a crash point of the running activity's workflow: one of the loop's, or a tool's own. */
export function point(name: PointName | (string & {}), detail: string): Promise<void> {
  const run = Context.current().info.workflowExecution;
  return crashPoint(name, { workflowId: run?.workflowId ?? 'standalone', detail, execution: run?.runId });
}

/**
 * The chain of runs the running activity's request belongs to: its workflow id (the server's word)
 * and the run that began the chain (`firstRunId`, which the workflow takes from the server's record
 * of its start). What the payload store seals a reference for, and the only chain it reads one for.
 */
export function chainOf(req: { firstRunId?: string }): RunChain {
  const { info } = Context.current();
  return { workflowId: info.workflowExecution?.workflowId ?? '', firstRunId: req.firstRunId ?? '' };
}

/** Where the running activity keeps a payload: its run's folder in the store, sealed for its chain. */
export function storeScope(req: { firstRunId?: string }): StoreScope {
  const { info } = Context.current();
  return {
    target: {
      kind: 'workflow',
      namespace: info.workflowNamespace ?? info.namespace,
      id: info.workflowExecution?.workflowId,
      runId: info.workflowExecution?.runId,
      type: info.workflowType,
    },
    chain: chainOf(req),
  };
}

/** One tool call as its activity sees it: the point detail, its key, its cancellation, and its points. */
export function callContext(
  req: { tool: string; callId: string; runId: string },
  config: Pick<ActivityConfig, 'keySecret'>,
) {
  const detail = `${req.tool} ${req.callId}`;
  return {
    detail,
    callKey: key(req.runId, req.callId, config.keySecret),
    signal: Context.current().cancellationSignal,
    at: (name: PointName | (string & {})) => point(name, detail),
  };
}

/** The conversation's turn, from 1: the model's replies so far, plus one. */
export function turnOf(messages: ReadonlyArray<{ role: string }>): number {
  return messages.filter((m) => m.role === 'assistant').length + 1;
}

/**
 * Heartbeats while `work` runs, if the activity has a heartbeat timeout: a long MCP call on a live
 * worker goes on, while one on a worker that died is retried after the heartbeat timeout. It wraps
 * the whole activity, crash points included: an activity parked by a harness is alive until its kill.
 */
export async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const timeout = ctx.info.heartbeatTimeoutMs;
  if (!timeout) return work();
  // Often, so that the SDK's throttle (at most 80% of the timeout, less if the worker says so) decides the pace.
  const timer = setInterval(() => ctx.heartbeat(), Math.max(50, timeout / 6));
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * A call that is neither a registered tool's nor an MCP server's: one of the tracker's tools that a run
 * started before runs named their tools had built in. This version does not serve them: the run must
 * finish on a worker of the version that started it.
 */
export function noBuiltInTools(tool: string): never {
  throw refused(
    `${tool} is one of the tracker's tools once built into the loop, which this worker does not serve: ` +
      'finish this run on a worker of the version that started it',
    'NoBuiltInTools',
  );
}

/** The worker's MCP servers; a run that names one on a worker without any is refused. */
export function toolbox(config: ActivityConfig): McpToolbox {
  if (!config.mcp) throw refused('this worker has no MCP servers configured (set MCP_CONFIG)', 'NoMcpConfig');
  return config.mcp;
}

/** The worker's registered tools; a run that names one on a worker without any is refused. */
export function registeredTools(config: ActivityConfig): ToolRegistry {
  if (!config.tools)
    throw refused('this worker has no tools registered (createAgentWorker({ tools }))', 'NoRegisteredTools');
  return config.tools;
}

/** How long an MCP request may take: what is left of the activity's start-to-close timeout. */
export function callTimeout(): number {
  return Math.max(1_000, Context.current().info.startToCloseTimeoutMs - 500);
}

/**
 * Whether the server started this attempt though the workflow allowed the call one try: an operator
 * paused the call mid-attempt and unpaused it (the server then starts the next attempt whatever the
 * retry policy says). Its earlier attempt may have acted; the workflow never heard how it ended.
 */
export function oneTryStartedAgain(): boolean {
  const { attempt, retryPolicy } = Context.current().info;
  return attempt > 1 && retryPolicy?.maximumAttempts === 1;
}

/** Whether this attempt is a retry (its call may have been sent before). */
export function retrying(): boolean {
  return Context.current().info.attempt > 1;
}
