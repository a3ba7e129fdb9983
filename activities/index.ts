import { Context } from '@temporalio/activity';
import OpenAI from 'openai';
import { crashPoint } from '../common/crash-points';
import { key } from '../common/key';
import type { ToolSpec } from '../workflows/tools';
import type {
  ChatMessage,
  ListToolsRequest,
  LookupResponse,
  ModelReply,
  ModelRequest,
  ToolRequest,
  ToolResponse,
  TurnRequest,
  TurnResponse,
} from '../workflows/types';
import { asActivityError, refused } from './errors';
import type { McpToolbox } from './mcp-toolbox';
import { askModel } from './model';
import { callTrackerTool, lookupTrackerCall } from '../tracker/tools';

/** What the activities need from the worker's environment. */
export interface ActivityConfig {
  /** The tracker's base URL, unless a run names its own. */
  trackerUrl: string;
  /** The bearer token of the tracker at `trackerUrl` (`TRACKER_TOKEN`); never sent to another tracker. */
  trackerToken?: string;
  /** The OpenAI-compatible client (base URL and key from `OPENAI_BASE_URL`, `OPENAI_API_KEY`). */
  openai: OpenAI;
  /** Model name, unless a run names its own (`AGENT_MODEL`). */
  model: string;
  /** The MCP servers this worker can reach (`MCP_CONFIG`). Default none. */
  mcp?: McpToolbox;
}

function where(detail: string) {
  return { workflowId: Context.current().info.workflowExecution?.workflowId ?? 'standalone', detail };
}

/**
 * Heartbeats while `work` runs, if the activity has a heartbeat timeout: a long MCP call on a live
 * worker goes on, while one on a worker that died is retried after the heartbeat timeout. It wraps
 * the whole activity, crash points included: an activity parked by a harness is alive until its kill.
 */
async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
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
 * The tracker a call goes to, and its token: the worker's own tracker gets the worker's token; a
 * tracker a run names in its input gets none, so a workflow's input cannot lead the token elsewhere.
 */
function trackerOf(config: ActivityConfig, url: string | undefined): { trackerUrl: string; trackerToken?: string } {
  const trackerUrl = url ?? config.trackerUrl;
  const own = new URL(trackerUrl).origin === new URL(config.trackerUrl).origin;
  return own && config.trackerToken ? { trackerUrl, trackerToken: config.trackerToken } : { trackerUrl };
}

/** Builds the agent's activities around one configuration. */
export function createActivities(config: ActivityConfig) {
  const toolbox = () => {
    if (!config.mcp) throw refused('this worker has no MCP servers configured (set MCP_CONFIG)', 'NoMcpConfig');
    return config.mcp;
  };
  /** How long an MCP request may take: what is left of the activity's start-to-close timeout. */
  const callTimeout = () => Math.max(1_000, Context.current().info.startToCloseTimeoutMs - 500);

  return {
    /** The tools of the run's MCP servers, with what the ladder needs to know of each, into history. */
    async listTools(req: ListToolsRequest): Promise<ToolSpec[]> {
      return heartbeating(async () => {
        const specs = await toolbox().listTools(req.servers, callTimeout());
        // The servers' names stay out of the point's detail: it names the step, whichever servers a run uses.
        await crashPoint('tools.listed', where(`${req.servers.length} server${req.servers.length === 1 ? '' : 's'}`));
        return specs;
      });
    },

    /** One model call. Its reply goes into history, tool-call ids included, before any tool runs. */
    async callModel(req: ModelRequest): Promise<ModelReply> {
      const turn = req.messages.filter((m) => m.role === 'assistant').length + 1;
      await crashPoint('model.started', where(`turn ${turn}`));
      const reply = await askModel(config.openai, req.model ?? config.model, req, Context.current().cancellationSignal);
      await crashPoint('model.returned', where(`turn ${turn}`));
      return reply;
    },

    /** One tool call, carrying `key(runId, callId)`: to the tracker itself, or through an MCP server. */
    runTool: (req: ToolRequest): Promise<ToolResponse> =>
      heartbeating(async () => {
        const detail = `${req.tool} ${req.callId}`;
        const callKey = key(req.runId, req.callId);
        const signal = Context.current().cancellationSignal;
        await crashPoint('tool.started', where(detail));
        const result = req.server
          ? await toolbox().callTool(req.server, req.tool, req.args, {
              key: callKey,
              timeoutMs: callTimeout(),
              signal,
              retrying: Context.current().info.attempt > 1,
              errorMayHideEffect: req.errorMayHideEffect,
            })
          : await callTrackerTool(req.tool, req.args, {
              ...trackerOf(config, req.trackerUrl),
              repo: req.repo,
              key: callKey,
              sendKey: req.sendKey,
              signal,
              onReply: () => crashPoint('tracker.accepted', where(detail)),
            }).catch((err: unknown) => {
              throw asActivityError(err, Context.current().info.attempt > 1);
            });
        await crashPoint('tool.returned', where(detail));
        return {
          output: result.output,
          replayed: result.replayed,
          attempt: Context.current().info.attempt,
          ...(result.retentionMs ? { keyRetentionMs: result.retentionMs } : {}),
        };
      }),

    /**
     * A whole turn in one activity, for the sweep's "save once per turn" design: the model call and
     * every tool call it asks for, without keys. A retry repeats all of it.
     */
    async runTurn(req: TurnRequest): Promise<TurnResponse> {
      const turn = req.messages.filter((m) => m.role === 'assistant').length + 1;
      await crashPoint('model.started', where(`turn ${turn}`));
      const { message: reply } = await askModel(config.openai, config.model, { runId: req.runId, messages: req.messages, tools: req.tools });
      await crashPoint('model.returned', where(`turn ${turn}`));
      const messages: ChatMessage[] = [reply];
      for (const call of reply.tool_calls ?? []) {
        const detail = `${call.function.name} ${call.id}`;
        await crashPoint('tool.started', where(detail));
        const result = await callTrackerTool(call.function.name, JSON.parse(call.function.arguments) as Record<string, unknown>, {
          ...trackerOf(config, req.trackerUrl),
          repo: req.repo,
          key: key(req.runId, call.id),
          sendKey: false,
          onReply: () => crashPoint('tracker.accepted', where(detail)),
        }).catch((err: unknown) => {
          // A retry of the turn repeats every call before this one: its outcome is never "not sent".
          throw asActivityError(err, true);
        });
        await crashPoint('tool.returned', where(detail));
        messages.push({ role: 'tool', tool_call_id: call.id, content: result.output });
      }
      await crashPoint('turn.returned', where(`turn ${turn}`));
      return { messages, answer: reply.tool_calls?.length ? null : reply.content ?? '' };
    },

    /** Asks the receiver whether a call whose outcome is unknown happened: the tracker, or the MCP server's lookup tool. */
    lookupCall: (req: ToolRequest): Promise<LookupResponse> =>
      heartbeating(async () => {
        const detail = `${req.tool} ${req.callId}`;
        const callKey = key(req.runId, req.callId);
        const signal = Context.current().cancellationSignal;
        await crashPoint('lookup.started', where(detail));
        const answer =
          req.server && req.lookupTool
            ? await toolbox().lookup(req.server, req.lookupTool, { ...req.args, tool: req.tool, key: callKey }, {
                key: key(req.runId, `${req.callId}#lookup`),
                timeoutMs: callTimeout(),
                signal,
              })
            : await lookupTrackerCall(req.tool, {
                ...trackerOf(config, req.trackerUrl),
                repo: req.repo,
                key: callKey,
                byKey: req.sendKey && !req.keyExpired,
                signal,
              }).catch((err: unknown) => {
                throw asActivityError(err, true);
              });
        await crashPoint('lookup.returned', where(detail));
        return answer;
      }),
  };
}

/** The activities' interface, for `proxyActivities` in workflow code. */
export type AgentActivities = ReturnType<typeof createActivities>;
