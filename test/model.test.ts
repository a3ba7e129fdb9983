// The scripted model server: its script, its call counters, and a fickle model.
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type { FastifyInstance } from 'fastify';
import { buildModelServer } from '../model/app';
import { TRACKER_TOOL_SPECS } from '../tracker/tool-specs';
import { toolsForModel } from '../workflows/tools';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

let app: FastifyInstance;
let client: OpenAI;
let baseUrl: string;

beforeAll(async () => {
  app = buildModelServer();
  await app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'scripted', maxRetries: 0 });
});
afterAll(() => app.close());

const tools = toolsForModel(TRACKER_TOOL_SPECS);

async function ask(run: string, messages: Message[]) {
  const res = await client.chat.completions.create({ model: 'triage-script', messages, tools, user: run });
  return res.choices[0].message;
}

describe('scripted model server, through the official openai client', () => {
  test('plays the triage script: two creates, then a comment on the first issue and a search, then an answer', async () => {
    const messages: Message[] = [{ role: 'user', content: 'checkout breaks with coupons' }];
    const turn1 = await ask('run-a', messages);
    expect(turn1.tool_calls!.map((c) => [c.id, c.type === 'function' && c.function.name])).toEqual([
      ['call_create_1', 'create_issue'],
      ['call_create_2', 'create_issue'],
    ]);
    messages.push(turn1 as Message);
    messages.push({ role: 'tool', tool_call_id: 'call_create_1', content: JSON.stringify({ number: 7 }) });
    messages.push({ role: 'tool', tool_call_id: 'call_create_2', content: JSON.stringify({ number: 8 }) });

    const turn2 = await ask('run-a', messages);
    const [comment, search] = turn2.tool_calls!.filter((c) => c.type === 'function');
    expect(comment.function.name).toBe('comment_on_issue');
    expect(JSON.parse(comment.function.arguments).number).toBe(7);
    expect(search.function.name).toBe('search_issues');
    messages.push(turn2 as Message);
    messages.push({ role: 'tool', tool_call_id: comment.id, content: JSON.stringify({ id: 1 }) });
    messages.push({ role: 'tool', tool_call_id: search.id, content: JSON.stringify({ items: [{}, {}] }) });

    const turn3 = await ask('run-a', messages);
    expect(turn3.tool_calls ?? []).toHaveLength(0);
    expect(turn3.content).toMatch(/Filed #7 and #8, commented on #7; a search for "checkout" finds 2 issue/);

    const counted = (await (await fetch(`${baseUrl}/calls?run=run-a`)).json()) as { calls: number };
    expect(counted.calls).toBe(3);
  });

  test('the same conversation gets the same reply, tool-call ids included, and each ask is counted per run', async () => {
    const messages: Message[] = [{ role: 'user', content: 'same task' }];
    const a = await ask('run-b', messages);
    const b = await ask('run-c', messages);
    expect(b).toEqual(a);
    const counts = (await (await fetch(`${baseUrl}/calls`)).json()) as { runs: Record<string, number> };
    expect(counts.runs['run-b']).toBe(1);
    expect(counts.runs['run-c']).toBe(1);
  });

  test('fails loudly on a conversation it has no script for', async () => {
    const messages: Message[] = [{ role: 'user', content: 'task' }];
    const turn1 = await ask('run-d', messages);
    // The tool calls have no results: the script cannot go on.
    await expect(ask('run-d', [...messages, turn1 as Message])).rejects.toThrow(
      /off script: tool call call_create_1 has no result/,
    );
    await expect(ask('run-d', [])).rejects.toThrow(/no user message/);
    await expect(client.chat.completions.create({ model: 'm', messages, user: 'run-d' })).rejects.toThrow(
      /does not offer the tools create_issue/,
    );
    await expect(client.chat.completions.create({ model: 'm', messages, tools })).rejects.toThrow(
      /run id in the `user` field/,
    );
  });
});

describe('a model that changes its mind (the sweep fickle rows)', () => {
  test('asked a conversation again, it answers with other call ids and titles; the script follows its own calls by tool', async () => {
    const fickle = buildModelServer({
      fickle: (run) => (run.startsWith('fickle-') ? 'new-ids' : run.startsWith('same-') ? 'same-ids' : false),
    });
    const post = async (run: string, messages: Message[]) => {
      const res = await fickle.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        payload: { model: 'triage-script', messages, tools, user: run },
      });
      return (
        res.json() as {
          choices: Array<{
            message: { tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> };
          }>;
        }
      ).choices[0].message;
    };
    try {
      const task: Message[] = [{ role: 'user', content: 'checkout breaks with coupons' }];
      const first = await post('fickle-1', task);
      const again = await post('fickle-1', task);
      expect(first.tool_calls!.map((c) => c.id)).toEqual(['call_create_1', 'call_create_2']);
      expect(again.tool_calls!.map((c) => c.id)).toEqual(['call_create_1_take2', 'call_create_2_take2']);
      expect(JSON.parse(again.tool_calls![0].function.arguments).title).toMatch(/ \(take 2\)$/);
      // A model that numbers its calls changes its mind under the ids it used before.
      await post('same-1', task);
      const same = await post('same-1', task);
      expect(same.tool_calls!.map((c) => c.id)).toEqual(['call_create_1', 'call_create_2']);
      expect(JSON.parse(same.tool_calls![0].function.arguments).title).toMatch(/ \(take 2\)$/);
      // Another run, or a run that is not fickle, starts from the script.
      expect((await post('fickle-2', task)).tool_calls!.map((c) => c.id)).toEqual(['call_create_1', 'call_create_2']);
      expect((await post('steady', task)).tool_calls![0].id).toBe('call_create_1');
      expect((await post('steady', task)).tool_calls![0].id).toBe('call_create_1');

      // The next turn comments on the issue of the reply the run kept, whatever its ids.
      const kept: Message[] = [
        ...task,
        again as Message,
        { role: 'tool', tool_call_id: 'call_create_1_take2', content: JSON.stringify({ number: 11 }) },
        { role: 'tool', tool_call_id: 'call_create_2_take2', content: JSON.stringify({ number: 12 }) },
      ];
      const turn2 = await post('fickle-1', kept);
      const comment = turn2.tool_calls!.find((c) => c.function.name === 'comment_on_issue')!;
      expect([comment.id, JSON.parse(comment.function.arguments).number]).toEqual(['call_comment_1', 11]);
    } finally {
      await fickle.close();
    }
  });
});
