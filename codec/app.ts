// Temporal's codec endpoint as a fastify app: opens and seals payloads for the Web UI and the CLI.
import type { Payload, PayloadCodec } from '@temporalio/common';
import Fastify, { type FastifyInstance } from 'fastify';
import { bearerMatches } from '../common/access';
import { guardHosts, httpPolicy } from '../common/http-guard';

/** Options of {@link buildCodecServer}. */
export interface CodecServerOptions {
  codec: PayloadCodec;
  /** Browser origins that may call it (the Web UI's). */
  origins: string[];
  /** Require `Authorization: Bearer <token>` on `/encode` and `/decode`. Default none. */
  token?: string;
  /** The `Host` names it answers to; any other is 403 (a rebinding page). Default the loopback names. */
  hosts?: string[];
}

/** A payload as Temporal's codec protocol carries it in JSON: bytes in base64. */
export interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data ?? '', 'base64'),
});
/** A payload in the codec protocol's JSON. */
export const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

const payloadsSchema = {
  type: 'object',
  required: ['payloads'],
  properties: {
    payloads: {
      type: 'array',
      maxItems: 10_000,
      items: {
        type: 'object',
        properties: {
          metadata: { type: 'object', additionalProperties: { type: 'string' } },
          data: { type: 'string' },
        },
      },
    },
  },
} as const;

/**
 * Temporal's codec endpoint (`POST /encode`, `POST /decode`, `{"payloads": [...]}`), so that a person
 * with access sees the plain text of an encrypted history in the Web UI (Settings, "Codec Server") or
 * the `temporal` CLI (`--codec-endpoint`). Answers the Web UI's CORS preflight for the given origins.
 */
export function buildCodecServer({ codec, origins, token, hosts }: CodecServerOptions): FastifyInstance {
  const app = Fastify({ bodyLimit: 16 * 1024 * 1024 });
  // The Host first (a rebinding page); the Origin is then held to the origins given, CORS answered for them.
  guardHosts(app, httpPolicy(hosts, origins));

  app.addHook('onRequest', async (req, reply) => {
    const origin = req.headers.origin;
    if (origin !== undefined) {
      if (!origins.includes(origin))
        return reply
          .code(403)
          .send({ error: 'forbidden', message: `origin ${origin} may not use this codec server (--allow-origin)` });
      reply
        .header('access-control-allow-origin', origin)
        .header('access-control-allow-credentials', 'true')
        .header('access-control-allow-methods', 'POST, OPTIONS')
        .header('access-control-allow-headers', 'content-type, x-namespace, authorization')
        .header('vary', 'origin');
    }
    if (req.method === 'OPTIONS') return reply.code(204).send();
    if (token && req.url !== '/health' && !bearerMatches(req.headers.authorization, token)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send({ error: 'unauthorized', message: 'this codec server requires a token' });
    }
  });
  // The preflight has no route of its own: the hook above answers it.
  app.options('/*', async () => undefined);
  app.get('/health', async () => ({ ok: true }));
  for (const direction of ['encode', 'decode'] as const) {
    app.post<{ Body: { payloads: JsonPayload[] } }>(
      `/${direction}`,
      { schema: { body: payloadsSchema } },
      async (req, reply) => {
        try {
          const out = await codec[direction](req.body.payloads.map(fromJson));
          return { payloads: out.map(toJson) };
        } catch (err) {
          return reply.code(400).send({ error: 'codec_failed', message: (err as Error).message });
        }
      },
    );
  }
  return app;
}
