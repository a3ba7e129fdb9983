// The `callModel` activity.
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ChatMessage, ConversationRef, ModelCallRequest, ModelReply, ModelRequest } from '../workflows/types';
import { earlierExecutions, earlierReplies, hasEarlierExecutions, replyFromEarlier } from './earlier-executions';
import { payloadDecoder } from '../common/history-events';
import { RECORD_AFTER_BYTES, recordTurn, wholeConversation } from '../store/conversation';
import { StoredPayloadError } from '../store/local-driver';
import type { RunChain } from '../store/reference-seal';
import { PAYLOAD_LIMIT_BYTES } from '../workflows/sizes';
import { chainOf, point, storeScope, turnOf, type ActivityConfig } from './context';
import { refused } from './errors';

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
  return (req: ModelCallRequest): Promise<ModelReply> =>
    storeErrorsEndTheCall(async () => {
      const { execution, conversation, messages: given, turn: asked, firstRunId: _chain, ...rest } = req;
      const chain = chainOf(req);
      const messages = conversation ? await wholeConversation(conversation, config.store, chain) : (given ?? []);
      const request: ModelRequest = { ...rest, messages };
      const turn = asked ?? turnOf(messages);
      await point('model.started', `turn ${turn}`);
      const earlier =
        execution && hasEarlierExecutions(execution) ? await earlierReplyTo(request, config, chain) : undefined;
      const reply = earlier
        ? { ...earlier.reply, fromRunId: earlier.runId }
        : await config.model.reply(request, Context.current().cancellationSignal);
      const bad = replyProblem(reply);
      if (bad) throw refused(`the model's reply is refused: ${bad}`, 'BadModelReply');
      // Once what the conversation carries inline reaches RECORD_AFTER_BYTES (4 KiB), this turn is stored and
      // the next call names it; a short conversation stays inline and costs the store nothing.
      const stored =
        config.store && conversation && inlineBytes(conversation, reply.message) >= RECORD_AFTER_BYTES
          ? await recordTurn(config.store, conversation, reply.message, [...messages, reply.message], storeScope(req))
          : undefined;
      // Without a store the reply travels inline: one over Temporal's limit would fail every attempt's
      // completion, and the model would be asked again for ever.
      const bytes = Buffer.byteLength(JSON.stringify(reply.message), 'utf8');
      if (!config.store && bytes > PAYLOAD_LIMIT_BYTES)
        throw ApplicationFailure.create({
          message:
            `the model's reply at turn ${turn} is ${bytes} bytes, over the ${PAYLOAD_LIMIT_BYTES} bytes Temporal takes in one payload: ` +
            'give the workers a payload store (createAgentWorker with a dataConverter whose externalStorage has a driver, or AGENT_PAYLOAD_DIR); the model was not asked again',
          type: 'PayloadTooLarge',
          nonRetryable: true,
          details: [{ what: `the model's reply at turn ${turn}`, bytes, limit: PAYLOAD_LIMIT_BYTES }],
        });
      await point('model.returned', `turn ${turn}`);
      const { conversation: _earlierRecord, ...answer } = reply;
      return { ...answer, ...(stored ? { conversation: stored } : {}) };
    });
}

/**
 * Why a model's reply cannot go into the conversation, or `null`: its text is a string or nothing,
 * and each tool call has a string id, name and arguments. A provider of the user's own, or an
 * earlier execution's reply, is held to the same shape, so no reply hands the run anything but text
 * (a stored-payload reference in `content` would otherwise be read into the next request).
 */
export function replyProblem(reply: ModelReply): string | null {
  const message = reply?.message as unknown as Record<string, unknown> | undefined;
  if (typeof message !== 'object' || message === null) return 'it holds no message';
  if (message.content !== null && typeof message.content !== 'string')
    return `its content must be a text or null, not ${Array.isArray(message.content) ? 'an array' : typeof message.content}`;
  const calls = message.tool_calls;
  if (calls === undefined) return null;
  if (!Array.isArray(calls)) return 'its tool_calls is not a list';
  for (const [i, call] of calls.entries()) {
    const c = call as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    if (typeof c?.id !== 'string' || typeof c.function?.name !== 'string' || typeof c.function.arguments !== 'string')
      return `its tool call ${i + 1} needs a string id, function name and arguments`;
  }
  return null;
}

/**
 * Runs a model call whose stored conversation cannot be read (a reference refused, an object missing
 * or changed) to a failure Temporal does not retry, naming what was wrong: asking again would read the
 * same store the same way, every 10 seconds, for ever. A worker with no store at all is left to retry:
 * another worker of the task queue, one with the store, may take the next attempt.
 */
async function storeErrorsEndTheCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof StoredPayloadError)
      throw ApplicationFailure.create({ message: err.message, type: err.name, nonRetryable: true, cause: err });
    throw err;
  }
}

/** UTF-8 bytes of what the next model call would carry inline: the messages added since the stored turns, and this reply. */
function inlineBytes(conversation: ConversationRef, reply: ChatMessage): number {
  return (
    Buffer.byteLength(JSON.stringify(conversation.added), 'utf8') + Buffer.byteLength(JSON.stringify(reply), 'utf8')
  );
}

/** The reply an earlier execution of this activity's run got to `request`, if one did. */
async function earlierReplyTo(request: ModelRequest, config: ActivityConfig, chain: RunChain) {
  const { client, info } = Context.current();
  const run = info.workflowExecution;
  if (!run) return undefined;
  const earlier = await earlierExecutions(client, run.workflowId, run.runId);
  const conversationOf = (asked: ModelCallRequest): Promise<ChatMessage[]> =>
    asked.conversation
      ? wholeConversation(asked.conversation, config.store, chain)
      : Promise.resolve(asked.messages ?? []);
  return replyFromEarlier(await earlierReplies(earlier, payloadDecoder(client), conversationOf), request);
}
