// The AI SDK adapter's cases, run by test/ai-sdk-model.test.ts on AI SDK 7 and by
// test/ai-sdk-model.v6.test.ts on AI SDK 6 (each with that version's OpenAI-compatible provider): against
// the real scripted model server over HTTP, the same conversation asked through `aiSdkModel` and
// through the loop's own `openAiModel` gets the same replies, turn by turn, and a refusal is not retried.
import type { AddressInfo } from 'node:net';
import type { LanguageModel } from 'ai';
import { ApplicationFailure } from '@temporalio/common';
import type { FastifyInstance } from 'fastify';
import { aiSdkModel, modelMessages } from '../../lib/ai-sdk';
import { openAiModel, type ModelProvider } from '../../lib/worker';
import { buildModelServer } from '../../model/app';
import { TRACKER_TOOL_SPECS } from '../../tracker/tool-specs';
import { toolsForModel } from '../../workflows/tools';
import type { ChatMessage, ModelRequest } from '../../workflows/types';

/** `createOpenAICompatible` of the version under test, as far as these cases use it. */
type Provider = (options: { name: string; baseURL: string; apiKey: string }) => {
  chatModel(id: string): unknown;
};

/** Declares the cases for the AI SDK that `ai` resolves to in this test file, with its provider. */
export function aiSdkModelCases(createOpenAICompatible: Provider): void {
  let app: FastifyInstance;
  let baseURL: string;

  beforeAll(async () => {
    app = buildModelServer();
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseURL = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => app.close());

  const scripted = () =>
    createOpenAICompatible({ name: 'scripted', baseURL, apiKey: 'none' }).chatModel('triage-script') as LanguageModel;

  /** Plays the triage script to its answer through `model`, the tools' results made up; every reply. */
  async function play(model: ModelProvider, runId: string) {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You triage bug reports.' },
      { role: 'user', content: 'checkout breaks with coupons' },
    ];
    const replies = [];
    let issue = 40;
    for (let turn = 1; turn <= 5; turn++) {
      const request: ModelRequest = { runId, messages: [...messages], tools: toolsForModel(TRACKER_TOOL_SPECS) };
      const reply = await model.reply(request);
      replies.push(reply);
      messages.push(reply.message);
      if (!reply.message.tool_calls?.length) break;
      for (const call of reply.message.tool_calls) {
        const made = { create_issue: { number: ++issue }, search_issues: { items: [1, 2, 3] } };
        const content = JSON.stringify(made[call.function.name as keyof typeof made] ?? { ok: true });
        messages.push({ role: 'tool', tool_call_id: call.id, content });
      }
    }
    return replies;
  }

  test('the scripted triage, asked through the AI SDK, gets the replies the OpenAI client gets', async () => {
    const viaOpenAi = await play(openAiModel({ baseURL, apiKey: 'none', model: 'triage-script' }), 'run-openai');
    const viaAiSdk = await play(
      aiSdkModel(scripted(), { providerOptions: (r) => ({ scripted: { user: r.runId } }) }),
      'run-ai-sdk',
    );
    expect(viaOpenAi.map((r) => r.finishReason)).toEqual(['tool_calls', 'tool_calls', 'stop']);
    expect(viaAiSdk).toEqual(viaOpenAi);
    // The comment went to the first issue's number: the tool results reached the model through the SDK.
    expect(JSON.parse(viaAiSdk[1].message.tool_calls![0].function.arguments)).toMatchObject({ number: 41 });
    expect(viaAiSdk[2].message.content).toContain('Filed #41 and #42');
    // The model server counted each run's calls: three each, none repeated by a client's retry.
    const calls = (await (await fetch(`${baseURL.replace(/\/v1$/, '')}/calls`)).json()) as { runs: object };
    expect(calls.runs).toMatchObject({ 'run-openai': 3, 'run-ai-sdk': 3 });
  }, 30_000);

  test('a 4xx from the provider is a refusal, not retried', async () => {
    // Without the run id as `user`, the scripted server answers 400.
    const err = await aiSdkModel(scripted())
      .reply({ runId: 'r', messages: [{ role: 'user', content: 'x' }], tools: toolsForModel(TRACKER_TOOL_SPECS) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'ModelRefused', nonRetryable: true });
    expect((err as Error).message).toMatch(/model refused the request \(400\).*user/);
  });

  test("the conversation in the SDK's shape: tool results named after their calls, unparsable arguments kept as text", () => {
    const messages = modelMessages([
      { role: 'system', content: 'aside' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'search_issues', arguments: '{"query":"x"}' } },
          { id: 'c2', type: 'function', function: { name: 'create_issue', arguments: '{"title":' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '[]' },
    ]);
    expect(messages).toEqual([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'search_issues', input: { query: 'x' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'create_issue', input: '{"title":' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'search_issues', output: { type: 'text', value: '[]' } },
        ],
      },
    ]);
  });
}
