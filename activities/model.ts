// One request to an OpenAI-compatible model, with the reply checked before it goes into history.
import OpenAI from 'openai';
import { refused } from './errors';
import type { ModelReply, ModelRequest } from '../workflows/types';

/**
 * Asks the model for its next reply. Retries are Temporal's, so the client's own are off. A 4xx
 * (other than rate limits and timeouts) is the provider refusing this conversation: no retry.
 */
export async function askModel(
  client: OpenAI,
  model: string,
  req: ModelRequest,
  signal?: AbortSignal,
): Promise<ModelReply> {
  let res: OpenAI.Chat.Completions.ChatCompletion;
  try {
    res = await client.chat.completions.create(
      {
        model,
        messages: req.messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
        tools: req.tools,
        user: req.runId,
      },
      { signal },
    );
  } catch (err) {
    if (
      err instanceof OpenAI.APIError &&
      err.status &&
      err.status >= 400 &&
      err.status < 500 &&
      err.status !== 408 &&
      err.status !== 429
    ) {
      throw refused(`model refused the request (${err.status}): ${err.message}`, 'ModelRefused');
    }
    throw err;
  }
  const choice = res.choices[0];
  if (!choice?.message) throw refused('model reply has no choices', 'ModelRefused');
  const toolCalls = (choice.message.tool_calls ?? []).filter((c) => c.type === 'function');
  const message = {
    role: 'assistant' as const,
    content: choice.message.content ?? null,
    ...(toolCalls.length > 0
      ? {
          tool_calls: toolCalls.map((c) => ({
            id: c.id,
            type: 'function' as const,
            function: { name: c.function.name, arguments: c.function.arguments },
          })),
        }
      : {}),
  };
  return { message, finishReason: choice.finish_reason ?? null };
}
