// The scripted model as an OpenAI-compatible HTTP server, counting calls per run.
import { createHash } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { guardHosts, httpPolicy, type HostPolicy } from '../common/http-guard';
import { changedMind, OffScriptError, playScript, type ChatMessage, type FickleIds } from './script';

/** Options of {@link buildModelServer}. */
export interface ModelServerOptions {
  /** Log requests to stdout. Default `false`. */
  logger?: boolean;
  /**
   * Runs whose model changes its mind: asked a conversation it has answered before, it answers with
   * other tool calls (`changedMind`), under new ids or the same ones (`FickleIds`); `false` for a run
   * whose model does not. Default: none (the same conversation always gets the same reply).
   */
  fickle?: (runId: string) => FickleIds | false;
  /** The `Host` names and browser `Origin`s it answers to; any other is 403. Default the loopback names. */
  hosts?: HostPolicy;
}

interface CompletionRequest {
  model: string;
  messages: ChatMessage[];
  tools?: Array<{ type: string; function: { name: string } }>;
  user?: string;
}

/**
 * An OpenAI-compatible chat-completions server that plays the triage script, and counts the calls it
 * served per run (the run id travels in the request's `user` field) so that repeated model calls are
 * measured outside the worker.
 */
export function buildModelServer(options: ModelServerOptions = {}): FastifyInstance {
  const app = Fastify({ logger: options.logger ?? false, bodyLimit: 4 * 1024 * 1024 });
  guardHosts(app, options.hosts ?? httpPolicy());
  const calls = new Map<string, number>();
  /** How often each run asked each conversation, for a fickle run's model. */
  const asked = new Map<string, number>();

  app.post<{ Body: CompletionRequest }>(
    '/v1/chat/completions',
    {
      schema: {
        body: {
          type: 'object',
          required: ['model', 'messages'],
          properties: {
            model: { type: 'string' },
            messages: { type: 'array', items: { type: 'object', required: ['role'] } },
            tools: { type: 'array' },
            user: { type: 'string' },
          },
        },
      },
    },
    async (req, reply) => {
      const { model, messages, tools = [], user } = req.body;
      if (!user) {
        return reply.code(400).send(openAiError('the scripted model needs the run id in the `user` field'));
      }
      calls.set(user, (calls.get(user) ?? 0) + 1);
      const turn = messages.filter((m) => m.role === 'assistant').length + 1;
      let scripted;
      try {
        scripted = playScript(
          messages,
          tools.map((t) => t.function?.name),
        );
        const fickle = options.fickle?.(user) ?? false;
        if (fickle) {
          const conversation = `${user} ${createHash('sha256').update(JSON.stringify(messages)).digest('hex')}`;
          const take = (asked.get(conversation) ?? 0) + 1;
          asked.set(conversation, take);
          scripted = changedMind(scripted, take, fickle);
        }
      } catch (err) {
        if (err instanceof OffScriptError) return reply.code(400).send(openAiError(err.message));
        throw err;
      }
      const message =
        scripted.kind === 'tools'
          ? { role: 'assistant', content: null, tool_calls: scripted.calls }
          : { role: 'assistant', content: scripted.text };
      return {
        id: `chatcmpl-triage-${turn}`,
        object: 'chat.completion',
        created: 0,
        model,
        choices: [
          { index: 0, message, finish_reason: scripted.kind === 'tools' ? 'tool_calls' : 'stop', logprobs: null },
        ],
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      };
    },
  );

  app.get<{ Querystring: { run?: string } }>('/calls', async (req) => {
    if (req.query.run !== undefined) return { run: req.query.run, calls: calls.get(req.query.run) ?? 0 };
    return { runs: Object.fromEntries(calls) };
  });

  app.get('/health', async () => ({ ok: true }));

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(openAiError(`no route ${req.method} ${req.url.split('?')[0]}`));
  });
  app.setErrorHandler((err: { statusCode?: number; message: string }, _req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    reply.code(status).send(openAiError(err.message));
  });
  return app;
}

/** The error shape OpenAI's API uses, so official clients show the message. */
function openAiError(message: string) {
  return { error: { message, type: 'invalid_request_error', param: null, code: null } };
}
