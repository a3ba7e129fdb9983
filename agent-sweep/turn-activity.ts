// The `runTurn` activity of the sweep's "save once per turn" design (designs.ts): registered by the
// sweep's worker beside the agent loop's activities, never by the loop's own.
import { key } from '../common/key';
import { reachTracker } from '../tracker/client';
import { callTrackerTool } from '../tracker/tools';
import { point, turnOf } from '../activities/context';
import { asActivityError, refused } from '../activities/errors';
import type { ModelProvider } from '../activities/model';
import type { ChatMessage, ModelRequest } from '../workflows/types';

/** Input of a whole-turn activity. */
export interface TurnRequest {
  runId: string;
  repo: string;
  trackerUrl?: string;
  messages: ChatMessage[];
  tools: ModelRequest['tools'];
}

/** What a whole turn adds to the conversation, and the final answer if the model gave one. */
export interface TurnResponse {
  messages: ChatMessage[];
  answer: string | null;
}

/** What the activity needs: the model, and the worker's own tracker and its token. */
export interface TurnConfig {
  model: ModelProvider;
  trackerUrl?: string;
  trackerToken?: string;
}

/**
 * A whole turn in one activity: the model call and every tool call it asks for, without keys. A
 * retry repeats all of it.
 */
export function turnActivities(config: TurnConfig) {
  return {
    async runTurn(req: TurnRequest): Promise<TurnResponse> {
      const tracker = reachTracker(config, req.trackerUrl);
      if (!tracker) throw refused('this worker has no tracker', 'NoTracker');
      const turn = turnOf(req.messages);
      await point('model.started', `turn ${turn}`);
      const { message: reply } = await config.model.reply({
        runId: req.runId,
        messages: req.messages,
        tools: req.tools,
      });
      await point('model.returned', `turn ${turn}`);
      const messages: ChatMessage[] = [reply];
      for (const call of reply.tool_calls ?? []) {
        const detail = `${call.function.name} ${call.id}`;
        await point('tool.started', detail);
        const result = await callTrackerTool(
          call.function.name,
          JSON.parse(call.function.arguments) as Record<string, unknown>,
          {
            ...tracker,
            repo: req.repo,
            key: key(req.runId, call.id),
            sendKey: false,
            onReply: () => point('tracker.accepted', detail),
          },
        ).catch((err: unknown) => {
          // A retry of the turn repeats every call before this one: its outcome is never "not sent".
          throw asActivityError(err, true);
        });
        await point('tool.returned', detail);
        messages.push({ role: 'tool', tool_call_id: call.id, content: result.output });
      }
      await point('turn.returned', `turn ${turn}`);
      return { messages, answer: reply.tool_calls?.length ? null : (reply.content ?? '') };
    },
  };
}

/** The activity's interface, for `proxyActivities` in the design's workflow code. */
export type TurnActivities = ReturnType<typeof turnActivities>;
