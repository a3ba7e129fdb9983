// The AI SDK adapter on AI SDK 7 (the version Temporal's AI SDK plugin takes): test/helpers/ai-sdk-model-cases.ts.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { aiSdkModelCases } from './helpers/ai-sdk-model-cases';

aiSdkModelCases(createOpenAICompatible);
