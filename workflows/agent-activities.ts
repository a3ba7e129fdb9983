// The agent's activities as the workflow calls them: their timeouts and retries.
import { proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../activities';
import type { ListToolsRequest, ModelCallRequest, RunTimeouts, ToolRequest } from './types';

type LookupRequest = Parameters<AgentActivities['lookupCall']>[0];

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
  // Listing changes nothing: it is retried for as long as it takes a worker to come back.
  const { listTools } = proxyActivities<AgentActivities>({ ...toolTimeouts, retry: retry() });

  return {
    /** One model reply; Temporal retries it, and only its cost repeats. */
    callModel: (req: ModelCallRequest, turn: number) =>
      callModel.executeWithOptions({ summary: `model reply, turn ${turn}` }, [req]),
    /** Asks the receiver whether a call happened (rung 2 of the ladder). */
    lookupCall: (req: LookupRequest) =>
      lookupCall.executeWithOptions({ summary: `did ${req.tool} ${req.callId} happen? asking the receiver (rung 2)` }, [
        req,
      ]),
    listTools: (req: ListToolsRequest) =>
      listTools.executeWithOptions(
        { summary: `list the tools of ${[...(req.tools ?? []), ...req.servers].join(', ')}` },
        [req],
      ),
    /**
     * One tool call, started for the `attempt`th time (its summary says so). A harmless repeat
     * is left to Temporal's retries, a bounded number of them, and all of them within `withinMs` when
     * set (a key's remaining life); then the ladder goes on.
     */
    runTool(req: ToolRequest, repeat: { harmless: boolean; withinMs?: number }, attempt = 1) {
      const how = repeat.harmless
        ? 'retried while a repeat is harmless (rung 1)'
        : 'one try: a repeat would not be harmless';
      const summary = `${req.tool} ${req.callId}, attempt ${attempt}: ${how}`;
      if (!repeat.harmless) return runToolOnce.executeWithOptions({ summary }, [req]);
      const bound =
        repeat.withinMs === undefined ? {} : { scheduleToCloseTimeout: Math.max(1, Math.floor(repeat.withinMs)) };
      return runToolOnce.executeWithOptions({ summary, ...bound, retry: retry(10) }, [req]);
    },
  };
}

export type AgentActivityProxies = ReturnType<typeof agentActivities>;
