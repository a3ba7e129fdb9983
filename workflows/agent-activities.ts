import { proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../activities';
import type { RunTimeouts, ToolRequest } from './types';

/**
 * The agent loop's activities with their timeouts and retry policies. A model call and a listing
 * change nothing, so Temporal retries them; a tool call is retried by Temporal only when the ladder
 * says a repeat is harmless, and then only within the time it allows.
 */
export function agentActivities(given: RunTimeouts = {}) {
  const timeouts = {
    modelMs: given.modelMs ?? 60_000,
    toolMs: given.toolMs ?? 30_000,
    retryInitialMs: given.retryInitialMs ?? 1_000,
    heartbeatMs: given.heartbeatMs,
  };
  /** Exponential backoff; `maximumAttempts` unset means no limit. */
  const retry = (maximumAttempts?: number) => ({
    initialInterval: timeouts.retryInitialMs,
    backoffCoefficient: 2,
    maximumInterval: timeouts.retryInitialMs * 10,
    ...(maximumAttempts ? { maximumAttempts } : {}),
  });
  const toolTimeouts = { startToCloseTimeout: timeouts.toolMs, heartbeatTimeout: timeouts.heartbeatMs };
  const { callModel } = proxyActivities<AgentActivities>({ startToCloseTimeout: timeouts.modelMs, retry: retry() }); // only its cost repeats
  // A call that must not run twice gets exactly one attempt; an unknown outcome goes to the ladder.
  const { runTool: runToolOnce } = proxyActivities<AgentActivities>({ ...toolTimeouts, retry: retry(1) });
  const { lookupCall } = proxyActivities<AgentActivities>({ ...toolTimeouts, retry: retry(5) });
  const { listTools } = proxyActivities<AgentActivities>({ ...toolTimeouts, retry: retry(10) });

  return {
    callModel,
    lookupCall,
    listTools,
    /**
     * One tool call. A harmless repeat is left to Temporal's retries, a bounded number of them, and
     * all of them within `withinMs` when set (a key's remaining life); then the ladder goes on.
     */
    runTool(req: ToolRequest, repeat: { harmless: boolean; withinMs?: number }) {
      if (!repeat.harmless) return runToolOnce(req);
      const bound = repeat.withinMs === undefined ? {} : { scheduleToCloseTimeout: Math.max(1, Math.floor(repeat.withinMs)) };
      return proxyActivities<AgentActivities>({ ...toolTimeouts, ...bound, retry: retry(10) }).runTool(req);
    },
  };
}

export type AgentActivityProxies = ReturnType<typeof agentActivities>;
