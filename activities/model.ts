// The model behind the loop: any provider behind one small interface, and the OpenAI-compatible one.
import OpenAI from 'openai';
import { refused } from './errors';
import type { ModelReply, ModelRequest } from '../workflows/types';

/**
 * A model the loop can ask: one reply to a conversation with tools. Implement it for a provider that
 * does not speak the OpenAI chat API. Throw `ApplicationFailure.nonRetryable` (or use {@link refused})
 * when the provider refuses the conversation; any other error is retried by Temporal, and only its
 * cost repeats. The reply's tool calls must carry ids, or the loop names them by their place.
 */
export interface ModelProvider {
  /** `request.model` is the run's model name when it names one, else the provider's own. */
  reply(request: ModelRequest, signal?: AbortSignal): Promise<ModelReply>;
}

/** Options of {@link openAiModel}. */
export interface OpenAiModelOptions {
  /** The provider's base URL, such as `https://api.openai.com/v1`. */
  baseURL: string;
  apiKey: string;
  /** The model name, unless a run names its own. */
  model: string;
}

/** Any OpenAI-compatible chat completions endpoint as the loop's model. Retries are Temporal's, so the client's are off. */
export function openAiModel(options: OpenAiModelOptions): ModelProvider {
  const client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey, maxRetries: 0 });
  return { reply: (request, signal) => askModel(client, request.model ?? options.model, request, signal) };
}

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
