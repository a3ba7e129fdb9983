// A model of the Vercel AI SDK (any of its providers) as the loop's model.
import { APICallError, generateText, jsonSchema, tool, type LanguageModel, type ModelMessage, type ToolSet } from 'ai';
import { refused } from './errors';
import type { ModelProvider } from './model';
import type { ChatMessage, ModelReply, ModelRequest } from '../workflows/types';

/** A provider's own options, keyed by the provider's name, as `generateText` takes them. */
type ProviderOptions = NonNullable<Parameters<typeof generateText>[0]['providerOptions']>;

/** Options of {@link aiSdkModel}. */
export interface AiSdkModelOptions {
  /**
   * The provider's own options for one request, from the loop's (for example the run id as an
   * OpenAI-compatible provider's `user`: `(r) => ({ [providerName]: { user: r.runId } })`).
   */
  providerOptions?: (request: ModelRequest) => ProviderOptions;
}

/**
 * A `LanguageModel` of the Vercel AI SDK as the loop's {@link ModelProvider}: the same conversation
 * and tools, asked through `generateText` for one step, its tool calls not executed (the loop runs
 * each as its own activity). Retries are Temporal's, so the SDK's are off; a 4xx other than a rate
 * limit or a timeout is the provider refusing the conversation, which is not retried. The run's
 * `model` name is the SDK's to choose (its `LanguageModel` names it), so it is not sent.
 */
export function aiSdkModel(model: LanguageModel, options: AiSdkModelOptions = {}): ModelProvider {
  return {
    async reply(request: ModelRequest, signal?: AbortSignal): Promise<ModelReply> {
      const tools: ToolSet = Object.fromEntries(
        (request.tools ?? []).map((t) => [
          t.function.name,
          tool({ description: t.function.description, inputSchema: jsonSchema(t.function.parameters) }),
        ]),
      );
      const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content ?? '');
      let result: Awaited<ReturnType<typeof generateText>>;
      try {
        result = await generateText({
          model,
          ...(system.length ? { system: system.join('\n\n') } : {}),
          messages: modelMessages(request.messages),
          tools,
          maxRetries: 0,
          abortSignal: signal,
          ...(options.providerOptions ? { providerOptions: options.providerOptions(request) } : {}),
        });
      } catch (err) {
        const status = APICallError.isInstance(err) ? err.statusCode : undefined;
        if (status && status >= 400 && status < 500 && status !== 408 && status !== 429)
          throw refused(`model refused the request (${status}): ${(err as Error).message}`, 'ModelRefused');
        throw err;
      }
      const toolCalls = result.toolCalls.map((c) => ({
        id: c.toolCallId,
        type: 'function' as const,
        // Arguments the SDK could not parse stay the text the model sent, for the loop to refuse.
        function: { name: c.toolName, arguments: typeof c.input === 'string' ? c.input : JSON.stringify(c.input) },
      }));
      const finishReason = result.finishReason === 'tool-calls' ? 'tool_calls' : result.finishReason;
      return {
        message: {
          role: 'assistant',
          content: result.text || null,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
        finishReason,
      };
    },
  };
}

/** The loop's conversation (OpenAI chat shape, as history holds it) as the AI SDK's messages, system aside. */
export function modelMessages(messages: readonly ChatMessage[]): ModelMessage[] {
  const names = new Map<string, string>();
  const out: ModelMessage[] = [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.content ?? '' });
    else if (m.role === 'assistant') {
      for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
      out.push({
        role: 'assistant',
        content: [
          ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
          ...(m.tool_calls ?? []).map((c) => ({
            type: 'tool-call' as const,
            toolCallId: c.id,
            toolName: c.function.name,
            input: parsedOr(c.function.arguments),
          })),
        ],
      });
    } else if (m.role === 'tool') {
      out.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: m.tool_call_id ?? '',
            toolName: names.get(m.tool_call_id ?? '') ?? '',
            output: { type: 'text', value: m.content ?? '' },
          },
        ],
      });
    }
  }
  return out;
}

function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
