// The `callModel` activity.
import { Context } from '@temporalio/activity';
import type { ChatMessage, ConversationRef, ModelCallRequest, ModelReply, ModelRequest } from '../workflows/types';
import { earlierExecutions, earlierReplies, hasEarlierExecutions, replyFromEarlier } from './earlier-executions';
import { payloadDecoder } from '../common/history-events';
import { RECORD_AFTER_BYTES, recordTurn, wholeConversation } from '../store/conversation';
import { point, storeTarget, turnOf, type ActivityConfig } from './context';

/**
 * One model call. Its reply goes into history, tool-call ids included, before any tool runs. In an
 * execution that a reset or a workflow retry started, the reply an earlier execution got to the same
 * request is taken from that execution's history instead: its tool calls keep their ids, so their
 * keys, and the model is not paid again for an answer the run already acted on.
 *
 * The workflow names the conversation by reference (`conversation`): the turns the payload store keeps,
 * and the messages added since. The activity rebuilds it and asks the model; once the messages the
 * conversation carries inline reach 4 KiB, it stores this call's record (what was added, and the
 * reply) for the next call to name, so no input carries more than about that inline. A worker with
 * no store gets every message inline and stores nothing.
 */
export function callModel(config: ActivityConfig) {
  return async (req: ModelCallRequest): Promise<ModelReply> => {
    const { execution, conversation, messages: given, turn: asked, ...rest } = req;
    const messages = conversation ? await wholeConversation(conversation, config.store) : (given ?? []);
    const request: ModelRequest = { ...rest, messages };
    const turn = asked ?? turnOf(messages);
    await point('model.started', `turn ${turn}`);
    const earlier = execution && hasEarlierExecutions(execution) ? await earlierReplyTo(request, config) : undefined;
    const reply = earlier
      ? { ...earlier.reply, fromRunId: earlier.runId }
      : await config.model.reply(request, Context.current().cancellationSignal);
    // Once what the conversation carries inline reaches RECORD_AFTER_BYTES (4 KiB), this turn is stored and
    // the next call names it; a short conversation stays inline and costs the store nothing.
    const stored =
      config.store && conversation && inlineBytes(conversation, reply.message) >= RECORD_AFTER_BYTES
        ? await recordTurn(config.store, conversation, reply.message, [...messages, reply.message], storeTarget())
        : undefined;
    await point('model.returned', `turn ${turn}`);
    const { conversation: _earlierRecord, ...answer } = reply;
    return { ...answer, ...(stored ? { conversation: stored } : {}) };
  };
}

/** UTF-8 bytes of what the next model call would carry inline: the messages added since the stored turns, and this reply. */
function inlineBytes(conversation: ConversationRef, reply: ChatMessage): number {
  return (
    Buffer.byteLength(JSON.stringify(conversation.added), 'utf8') + Buffer.byteLength(JSON.stringify(reply), 'utf8')
  );
}

/** The reply an earlier execution of this activity's run got to `request`, if one did. */
async function earlierReplyTo(request: ModelRequest, config: ActivityConfig) {
  const { client, info } = Context.current();
  const run = info.workflowExecution;
  if (!run) return undefined;
  const earlier = await earlierExecutions(client, run.workflowId, run.runId);
  const conversationOf = (asked: ModelCallRequest): Promise<ChatMessage[]> =>
    asked.conversation ? wholeConversation(asked.conversation, config.store) : Promise.resolve(asked.messages ?? []);
  return replyFromEarlier(await earlierReplies(earlier, payloadDecoder(client), conversationOf), request);
}
