// The agent the loop's benchmark runs: it reads pages of a given size for a given number of turns.
import { z } from 'zod/v4';
import { defineTool, type ModelProvider } from '../lib/worker';

/** A page of `bytes` ASCII bytes that says which page it is. */
export function page(n: number, bytes: number): string {
  return `page ${n}:`.padEnd(bytes, 'abcdefghij');
}

/** A read-only tool that returns a page of the size asked: what reading web pages or files looks like. */
export const fetchPage = defineTool({
  name: 'fetch_page',
  description: 'Fetch a page of a document',
  parameters: z.object({ n: z.number(), bytes: z.number() }),
  effect: 'read-only',
  // The largest page the benchmark reads is 500 KB: shown whole.
  maxOutputBytes: 1024 * 1024,
  run: async ({ n, bytes }) => page(n, bytes),
});

/** The task that asks for `turns` pages of `bytes`. */
export function readingTask(turns: number, bytes: number): string {
  return `read ${turns} ${bytes}`;
}

/** What the model was sent, per run: the UTF-8 bytes of each request's conversation. */
export const sentToModel = new Map<string, number[]>();

/**
 * A model that asks for one page per turn until it has read as many as its task says, then answers:
 * the loop's own cost, with no provider's latency in it. It records what each request weighed.
 */
export const readingModel: ModelProvider = {
  async reply(request) {
    const sent = Buffer.byteLength(JSON.stringify(request.messages), 'utf8');
    sentToModel.set(request.runId, [...(sentToModel.get(request.runId) ?? []), sent]);
    const [, turns, bytes] = String(request.messages.find((m) => m.role === 'user')?.content).split(' ');
    const turn = request.messages.filter((m) => m.role === 'assistant').length + 1;
    if (turn > Number(turns))
      return { message: { role: 'assistant', content: `read ${turns} pages` }, finishReason: 'stop' };
    const call = {
      id: `call_${turn}`,
      type: 'function' as const,
      function: { name: 'fetch_page', arguments: JSON.stringify({ n: turn, bytes: Number(bytes) }) },
    };
    return { message: { role: 'assistant', content: null, tool_calls: [call] }, finishReason: 'tool_calls' };
  },
};
