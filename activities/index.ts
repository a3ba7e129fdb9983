import { Context } from '@temporalio/activity';
import OpenAI from 'openai';
import { crashPoint } from '../common/crash-points';
import { key } from '../common/key';
import type { ChatMessage, LookupResponse, ModelRequest, ToolRequest, ToolResponse, TurnRequest, TurnResponse } from '../workflows/types';
import { askModel } from './model';
import { callTrackerTool, lookupTrackerCall } from './tracker-tools';

/** What the activities need from the worker's environment. */
export interface ActivityConfig {
  /** The tracker's base URL, unless a run names its own. */
  trackerUrl: string;
  /** The OpenAI-compatible client (base URL and key from `OPENAI_BASE_URL`, `OPENAI_API_KEY`). */
  openai: OpenAI;
  /** Model name, unless a run names its own (`AGENT_MODEL`). */
  model: string;
}

function where(detail: string) {
  return { workflowId: Context.current().info.workflowExecution?.workflowId ?? 'standalone', detail };
}

/** Builds the agent's activities around one configuration. */
export function createActivities(config: ActivityConfig) {
  return {
    /** One model call. Its reply goes into history, tool-call ids included, before any tool runs. */
    async callModel(req: ModelRequest): Promise<ChatMessage> {
      const turn = req.messages.filter((m) => m.role === 'assistant').length + 1;
      await crashPoint('model.started', where(`turn ${turn}`));
      const reply = await askModel(config.openai, req.model ?? config.model, req, Context.current().cancellationSignal);
      await crashPoint('model.returned', where(`turn ${turn}`));
      return reply;
    },

    /** One tool call, carrying `key(runId, callId)`. */
    async runTool(req: ToolRequest): Promise<ToolResponse> {
      const detail = `${req.tool} ${req.callId}`;
      await crashPoint('tool.started', where(detail));
      const result = await callTrackerTool(req.tool, req.args, {
        trackerUrl: req.trackerUrl ?? config.trackerUrl,
        repo: req.repo,
        key: key(req.runId, req.callId),
        sendKey: req.sendKey,
        signal: Context.current().cancellationSignal,
        onReply: () => crashPoint('tracker.accepted', where(detail)),
      });
      await crashPoint('tool.returned', where(detail));
      return { output: result.output, replayed: result.replayed, attempt: Context.current().info.attempt };
    },

    /**
     * A whole turn in one activity, for the sweep's "save once per turn" design: the model call and
     * every tool call it asks for, without keys. A retry repeats all of it.
     */
    async runTurn(req: TurnRequest): Promise<TurnResponse> {
      const turn = req.messages.filter((m) => m.role === 'assistant').length + 1;
      await crashPoint('model.started', where(`turn ${turn}`));
      const reply = await askModel(config.openai, config.model, { runId: req.runId, messages: req.messages, tools: req.tools });
      await crashPoint('model.returned', where(`turn ${turn}`));
      const messages: ChatMessage[] = [reply];
      for (const call of reply.tool_calls ?? []) {
        const detail = `${call.function.name} ${call.id}`;
        await crashPoint('tool.started', where(detail));
        const result = await callTrackerTool(call.function.name, JSON.parse(call.function.arguments) as Record<string, unknown>, {
          trackerUrl: req.trackerUrl ?? config.trackerUrl,
          repo: req.repo,
          key: key(req.runId, call.id),
          sendKey: false,
          onReply: () => crashPoint('tracker.accepted', where(detail)),
        });
        await crashPoint('tool.returned', where(detail));
        messages.push({ role: 'tool', tool_call_id: call.id, content: result.output });
      }
      await crashPoint('turn.returned', where(`turn ${turn}`));
      return { messages, answer: reply.tool_calls?.length ? null : reply.content ?? '' };
    },

    /** Asks the receiver whether a call whose outcome is unknown happened. */
    async lookupCall(req: ToolRequest): Promise<LookupResponse> {
      const detail = `${req.tool} ${req.callId}`;
      await crashPoint('lookup.started', where(detail));
      const answer = await lookupTrackerCall(req.tool, {
        trackerUrl: req.trackerUrl ?? config.trackerUrl,
        repo: req.repo,
        key: key(req.runId, req.callId),
        byKey: req.sendKey,
        signal: Context.current().cancellationSignal,
      });
      await crashPoint('lookup.returned', where(detail));
      return answer;
    },
  };
}

/** The activities' interface, for `proxyActivities` in workflow code. */
export type AgentActivities = ReturnType<typeof createActivities>;
