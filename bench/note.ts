// The benchmark's one tool, and its scripted model endpoint: the same for the loop and for the plugin.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The tool as an activity: it notes a number (what it writes is not the point: the cost around it is). */
export const noteActivities = {
  async note({ n }: { n: number }): Promise<string> {
    return `noted ${n}`;
  },
};
export type NoteActivities = typeof noteActivities;

/**
 * An OpenAI-compatible chat completions endpoint: for the task `turns N`, a `note` tool call per turn
 * for N turns, then the answer. Both sides reach it through the AI SDK's OpenAI-compatible provider.
 */
export async function startTurnsEndpoint(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      const { messages } = JSON.parse(body) as { messages: Array<{ role: string; content: unknown }> };
      const task = messages.find((m) => m.role === 'user');
      const text = typeof task?.content === 'string' ? task.content : JSON.stringify(task?.content);
      const turns = Number(/turns (\d+)/.exec(text ?? '')?.[1] ?? 0);
      const turn = messages.filter((m) => m.role === 'assistant').length + 1;
      const message =
        turn > turns
          ? { role: 'assistant', content: `noted ${turns} times` }
          : {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: `call_${turn}`,
                  type: 'function',
                  function: { name: 'note', arguments: JSON.stringify({ n: turn }) },
                },
              ],
            };
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${turn}`,
          object: 'chat.completion',
          created: 0,
          model: 'turns',
          choices: [{ index: 0, message, finish_reason: turn > turns ? 'stop' : 'tool_calls' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
