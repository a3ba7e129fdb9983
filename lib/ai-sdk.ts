/**
 * `crash-safe-agent/ai-sdk`: a model of the Vercel AI SDK (`ai`, an optional peer dependency) as the
 * loop's model, for a provider that does not speak the OpenAI chat API.
 *
 * ```ts
 * createAgentWorker({ modelProvider: aiSdkModel(anthropic('claude-sonnet-4-5')), tools, ... });
 * ```
 */
export { aiSdkModel, modelMessages, type AiSdkModelOptions } from '../activities/ai-sdk-model';
