// The example's model: a scripted OpenAI-compatible chat completions endpoint, the API that the AI SDK's
// OpenAI-compatible provider calls from the plugin's model activity. It counts each run's calls.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Message {
  role: string;
  content: unknown;
}

/** The run a conversation belongs to: the task names it (`... (run RUN_ID)`). */
export function runOf(messages: Message[]): string {
  const task = messages.find((m) => m.role === 'user');
  const text = typeof task?.content === 'string' ? task.content : JSON.stringify(task?.content ?? '');
  return /\(run ([^)]+)\)/.exec(text)?.[1] ?? '';
}

/**
 * Turn by turn, as the sample's weather agent would go with a tool that acts: ask the weather, mail it,
 * then answer. The tool-call ids follow the turn (`call_1`, `call_2`): asked again for the same
 * conversation, the model gives the same reply.
 */
function reply(messages: Message[]) {
  const run = runOf(messages);
  const turn = messages.filter((m) => m.role === 'assistant').length;
  const call = (name: string, args: unknown) => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id: `call_${turn + 1}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  });
  if (turn === 0) return { message: call('getWeather', { location: 'Paris' }), finish_reason: 'tool_calls' };
  if (turn === 1)
    return {
      // `run`: what the MCP shape's mail server needs to name the run to the mail service (the
      // activities read it from their context, and their input schema drops it).
      message: call('sendEmail', { to: 'ada@example.com', subject: 'Weather in Paris', body: 'Sunny, 21 °C.', run }),
      finish_reason: 'tool_calls',
    };
  return { message: { role: 'assistant', content: 'I mailed Ada the weather in Paris.' }, finish_reason: 'stop' };
}

/** A running model endpoint: its URL (`.../v1`) and each run's calls. */
export interface ModelEndpoint {
  url: string;
  calls(run: string): number;
  close(): Promise<void>;
}

export async function startModelEndpoint(): Promise<ModelEndpoint> {
  const calls = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      let messages: Message[];
      try {
        ({ messages } = JSON.parse(body) as { messages: Message[] });
        if (!Array.isArray(messages)) throw new Error('no messages');
      } catch (err) {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `not a chat completions request: ${(err as Error).message}` } }));
        return;
      }
      const run = runOf(messages);
      calls.set(run, (calls.get(run) ?? 0) + 1);
      const { message, finish_reason } = reply(messages);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${run}-${messages.length}`,
          object: 'chat.completion',
          created: 0,
          model: 'weather-script',
          choices: [{ index: 0, message, finish_reason }],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    calls: (run) => calls.get(run) ?? 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
