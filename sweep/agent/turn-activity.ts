// The `runTurn` activity.
import { key } from '../common/key';
import { callTrackerTool } from '../tracker/tools';
import type { ChatMessage, TurnRequest, TurnResponse } from '../workflows/types';
import { point, trackerOf, turnOf, type ActivityConfig } from './context';
import { asActivityError } from './errors';

/**
 * A whole turn in one activity, for the sweep's "save once per turn" design: the model call and
 * every tool call it asks for, without keys. A retry repeats all of it.
 */
export function runTurn(config: ActivityConfig) {
  return async (req: TurnRequest): Promise<TurnResponse> => {
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
          ...trackerOf(config, req.trackerUrl),
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
  };
}
