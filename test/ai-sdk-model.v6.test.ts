// The AI SDK adapter on AI SDK 6, which the package's peer range still takes: `ai` is the AI SDK 6
// installed as `ai-v6` (a development dependency), with its own OpenAI-compatible provider.
import { createOpenAICompatible } from 'openai-compatible-v2';
import { aiSdkModelCases } from './helpers/ai-sdk-model-cases';

jest.mock('ai', () => jest.requireActual('ai-v6'));

test('the adapter under test loads AI SDK 6', () => {
  expect((jest.requireActual('ai-v6/package.json') as { version: string }).version).toMatch(/^6\./);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  expect(require('ai')).toBe(jest.requireActual('ai-v6'));
});

aiSdkModelCases(createOpenAICompatible);
