// The tracker's HTTP app: its routes and hooks (token, commit deadline, slow receiver); keys in idempotency.ts.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { bearerMatches } from '../common/access';
import { guardHosts, httpPolicy, type HostPolicy } from '../common/http-guard';
import { HttpError } from './errors';
import { routeBodySchema, trackerToolSpec } from './tool-args';
import { TRACE_ROOM } from './tools';
import {
  COMMIT_DEADLINE_HEADER,
  fingerprintOf,
  IdempotencyKeys,
  readKey,
  REPLAYED_HEADER,
  RETENTION_HEADER,
  scopedKey,
  tokenScope,
  type KeyedResponse,
} from './idempotency';
import type { Store } from './store';

/** Options of {@link buildTracker}. */
export interface TrackerOptions {
  /** The database the tracker reads and writes. */
  store: Store;
  /** Ignore `Idempotency-Key` headers entirely, as a receiver without key support would. Default `false`. */
  keyless?: boolean;
  /** How long a key is remembered, in milliseconds; after that it counts as new. Default 24 h. */
  keyTtlMs?: number;
  /** The clock, for tests. Default `Date.now`. */
  now?: () => number;
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /** Log requests to stdout. Default `false`. */
  logger?: boolean;
  /**
   * Require `Authorization: Bearer <token>` on every route but `/health`: one token, or several, each
   * an account of its own whose idempotency keys no other token can use or read. Default none (no check).
   */
  token?: string | readonly string[];
  /**
   * The `Host` names and browser `Origin`s it answers to; any other is 403 before a route runs, so a
   * web page that rebinds its name to 127.0.0.1 reaches nothing. Default the loopback names.
   */
  hosts?: HostPolicy;
  /**
   * A request is committed within this many milliseconds of its arrival or never (it is then answered
   * 503 and nothing of it is kept); a key's claim lapses after it. Default 30 s.
   */
  commitDeadlineMs?: number;
  /**
   * Say the commit deadline on every response (`Commit-Deadline-Ms`), so a caller that finds no trace
   * of a request knows how long it may still appear. Default `false`.
   */
  stateCommitDeadline?: boolean;
  /**
   * Claim a key while its first request is in flight, so a second request with the key is answered
   * 409 instead of acting again. Default `true`; `false` is the race the crash sweep shows.
   */
  claimKeys?: boolean;
  /** A slow receiver for the crash sweep: holds mutations before they commit (see `sweep/faults/slow-receiver.ts`). */
  slow?: CommitHold;
  /** Where a crash harness may stop a write (the sweep parks it there and SIGKILLs the tracker process). */
  points?: TrackerPoints;
}

/** The two boundaries of a write inside the tracker. */
export interface TrackerPoints {
  /** A write has arrived and nothing of it is written, not even its key's claim. */
  received?(repo: string, fingerprint: string): Promise<void>;
  /** The write is committed (its effect and its key's response) and its reply is not yet sent. */
  committed?(repo: string, fingerprint: string): Promise<void>;
}

/** What the tracker asks of a slow receiver's hold. */
export interface CommitHold {
  /** Resolves when a mutation of `repo` may commit. */
  beforeCommit(repo: string, fingerprint: string): Promise<void>;
  /** Told when the tracker has answered a request of `repo`. */
  answered(repo: string): void;
}

const DEFAULT_COMMIT_DEADLINE_MS = 30_000;

const DAY_MS = 86_400_000;

const repoParam = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' } as const;
const numberParam = { type: 'string', pattern: '^[0-9]{1,9}$' } as const;

/**
 * Builds the tracker's HTTP app without listening, so tests drive it in-process and `server.ts` runs
 * it for real. Every failure leaves as `{error, message}`: 4xx for bad input, never a stack trace.
 */
export function buildTracker(options: TrackerOptions): FastifyInstance {
  const { store, keyless = false, keyTtlMs = DAY_MS, now = Date.now, claimKeys = true } = options;
  const commitDeadlineMs = options.commitDeadlineMs ?? DEFAULT_COMMIT_DEADLINE_MS;
  const keys = new IdempotencyKeys({ store, keyTtlMs, claimKeys, commitDeadlineMs, now });
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // Long enough for a 255-character key, so an over-long key gets our 400, not a bare 414.
    routerOptions: { maxParamLength: 512 },
    // Wrong-typed fields are errors, not values to coerce: a title of 42 is a bad request.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
  });
  // JSON only: a text/plain body is a 415, not a string that then fails the schema.
  app.removeContentTypeParser('text/plain');
  // A body nested deeper than any request of ours needs is a 400, before a schema or a fingerprint walks it.
  app.addHook('preValidation', async (req) => {
    if (nestedDeeperThan(req.body, MAX_BODY_DEPTH))
      throw new HttpError(400, 'too_deep', `the JSON body is nested deeper than ${MAX_BODY_DEPTH} levels`);
  });
  const scopeOf = guardAccess(app, options);
  if (options.stateCommitDeadline) {
    app.addHook('onSend', async (_req, reply) => {
      reply.header(COMMIT_DEADLINE_HEADER, String(commitDeadlineMs));
    });
  }
  const { slow } = options;
  if (slow) {
    app.addHook('onResponse', async (req) => {
      const repo = (req.params as { repo?: string } | undefined)?.repo;
      if (repo) slow.answered(repo);
    });
  }
  const mutate = keyedMutation({ ...options, keyless, now, commitDeadlineMs }, keys, scopeOf);
  const timestamp = () => new Date(now()).toISOString();
  app.get('/health', async () => ({ ok: true, keyless, keyTtlSeconds: keys.retentionSeconds }));
  addWriteRoutes(app, store, mutate, timestamp);
  addReadRoutes(app, store);
  app.get<{ Params: { key: string } }>('/idempotency/:key', async (req) => {
    if (keyless) {
      // Not a 404: "no such key" would read as "the call never happened", which a keyless tracker cannot know.
      throw new HttpError(501, 'keys_not_supported', 'this tracker runs keyless and keeps no idempotency keys');
    }
    return keys.lookup(req.params.key, scopedKey(scopeOf(req), req.params.key));
  });
  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send({ error: 'route_not_found', message: `no route ${req.method} ${req.url.split('?')[0]}` });
  });
  app.setErrorHandler((err, req, reply) => {
    const { status, code, message } = describe(err);
    if (status >= 500) req.log.error(err);
    reply.code(status).send({ error: code, message, ...(err instanceof HttpError ? err.extra : {}) });
  });
  return app;
}

/**
 * Who may call: the Host and Origin checks, then the token (one of several: each its own scope of
 * keys), both before any route runs, so a rebinding page, or a request without the token, changes
 * nothing and learns nothing. Returns the scope of the token a request came with.
 */
function guardAccess(app: FastifyInstance, options: TrackerOptions): (req: FastifyRequest) => string {
  guardHosts(app, options.hosts ?? httpPolicy());
  const tokens = typeof options.token === 'string' ? [options.token] : [...(options.token ?? [])];
  /** The scope of the token each request came with (empty on a tracker without tokens). */
  const scopes = new WeakMap<FastifyRequest, string>();
  if (tokens.length > 0) {
    app.addHook('onRequest', async (req, reply) => {
      if (req.url === '/health') return;
      // Every token is compared (in constant time each), so the time taken does not tell which matched.
      const matched = tokens.filter((t) => bearerMatches(req.headers.authorization, t));
      if (matched.length > 0) {
        scopes.set(req, tokenScope(matched[0]));
        return;
      }
      return reply.code(401).header('www-authenticate', 'Bearer').send({
        error: 'unauthorized',
        message: 'this tracker requires a token: Authorization: Bearer <TRACKER_TOKEN>',
      });
    });
  }
  return (req) => scopes.get(req) ?? '';
}

/** Runs one mutation of a request, and sends its response. */
type Mutate = (
  req: FastifyRequest<{ Params: { repo: string } }>,
  reply: FastifyReply,
  perform: () => KeyedResponse,
) => Promise<FastifyReply>;

/**
 * Runs one mutation, honouring its idempotency key unless the tracker is keyless. A keyed request
 * first claims its key (a second request with the key while the first is still in flight gets 409,
 * and nothing happens twice); then, after any hold of a slow receiver, the effect, the key's
 * response and the end of the claim commit in one transaction, unless the commit deadline has passed.
 */
function keyedMutation(
  options: TrackerOptions & Required<Pick<TrackerOptions, 'keyless' | 'now' | 'commitDeadlineMs'>>,
  keys: IdempotencyKeys,
  scopeOf: (req: FastifyRequest) => string,
): Mutate {
  const { store, keyless, now, commitDeadlineMs } = options;
  return async (req, reply, perform) => {
    const sent = keyless ? undefined : readKey(req);
    // Keys live in the caller's scope: another token's holder can neither use nor read them.
    const key = sent === undefined ? undefined : scopedKey(scopeOf(req), sent);
    const fingerprint = fingerprintOf(req);
    const request = { method: req.method, path: req.url.split('?')[0], body: req.body };
    await options.points?.received?.(req.params.repo, fingerprint);
    const receivedMs = now();
    if (key !== undefined) {
      reply.header(RETENTION_HEADER, String(keys.retentionSeconds));
      const answered = keys.claim(key, fingerprint, receivedMs, sent);
      if (answered === 'in-flight') {
        return reply
          .code(409)
          .header('retry-after', '1')
          .send({
            error: 'request_in_flight',
            message: `a request with idempotency key ${sent} is still being processed; ask again later`,
          });
      }
      if (answered) return reply.code(answered.status).header(REPLAYED_HEADER, 'true').send(answered.body);
    }
    try {
      await options.slow?.beforeCommit(req.params.repo, fingerprint);
      const outcome = store.transaction(() => {
        if (now() - receivedMs > commitDeadlineMs) {
          throw new HttpError(
            503,
            'commit_deadline_passed',
            `the request was not committed within ${commitDeadlineMs} ms of its arrival, so it never will be`,
          );
        }
        const fresh = perform();
        if (key !== undefined) keys.record(key, fingerprint, fresh, receivedMs, request);
        return fresh;
      });
      await options.points?.committed?.(req.params.repo, fingerprint);
      return reply.code(outcome.status).send(outcome.body);
    } catch (err) {
      if (key !== undefined) keys.release(key, receivedMs); // nothing committed: the key is free again
      throw err;
    }
  };
}

/** The routes that write: an issue, a comment; each through `mutate`, so keyed. */
function addWriteRoutes(app: FastifyInstance, store: Store, mutate: Mutate, timestamp: () => string): void {
  app.post<{ Params: { repo: string }; Body: { title: string; body: string; labels?: string[] } }>(
    '/repos/:repo/issues',
    {
      schema: {
        params: { type: 'object', properties: { repo: repoParam }, required: ['repo'] },
        // The create_issue tool's arguments, with room in `body` for the trace line each call writes.
        body: routeBodySchema(trackerToolSpec('create_issue'), { room: { body: TRACE_ROOM } }),
      },
    },
    async (req, reply) =>
      mutate(req, reply, () => {
        const { title, body, labels = [] } = req.body;
        return { status: 201, body: store.createIssue(req.params.repo, title, body, labels, timestamp()) };
      }),
  );

  app.post<{ Params: { repo: string; number: string }; Body: { body: string } }>(
    '/repos/:repo/issues/:number/comments',
    {
      schema: {
        params: { type: 'object', properties: { repo: repoParam, number: numberParam }, required: ['repo', 'number'] },
        body: routeBodySchema(trackerToolSpec('comment_on_issue'), { omit: ['number'], room: { body: TRACE_ROOM } }),
      },
    },
    async (req, reply) =>
      mutate(req, reply, () => {
        const number = Number(req.params.number);
        if (!store.getIssue(req.params.repo, number)) {
          throw new HttpError(404, 'issue_not_found', `no issue ${number} in ${req.params.repo}`);
        }
        return { status: 201, body: store.addComment(req.params.repo, number, req.body.body, timestamp()) };
      }),
  );
}

/** The routes that read: a search of a repository's issues, and one issue; each with its comments. */
function addReadRoutes(app: FastifyInstance, store: Store): void {
  app.get<{ Params: { repo: string }; Querystring: { q?: string } }>(
    '/repos/:repo/issues',
    {
      schema: {
        params: { type: 'object', properties: { repo: repoParam }, required: ['repo'] },
        querystring: {
          type: 'object',
          properties: { q: trackerToolSpec('search_issues').parameters.properties.query },
        },
      },
    },
    async (req) => {
      const items = store.searchIssues(req.params.repo, req.query.q ?? '').map((issue) => ({
        ...issue,
        comments: store.commentsOf(issue.repo, issue.number),
      }));
      return { items };
    },
  );

  app.get<{ Params: { repo: string; number: string } }>(
    '/repos/:repo/issues/:number',
    {
      schema: {
        params: { type: 'object', properties: { repo: repoParam, number: numberParam }, required: ['repo', 'number'] },
      },
    },
    async (req) => {
      const number = Number(req.params.number);
      const issue = store.getIssue(req.params.repo, number);
      if (!issue) throw new HttpError(404, 'issue_not_found', `no issue ${number} in ${req.params.repo}`);
      return { ...issue, comments: store.commentsOf(issue.repo, issue.number) };
    },
  );
}

/** How deep a request body may nest: the tracker's own bodies need 3 levels. */
export const MAX_BODY_DEPTH = 32;

/** Whether `value` nests arrays or objects more than `max` deep; a loop, not recursion, so any depth is safe. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(v as object)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Maps any thrown error to a status, a stable code and a message fit for a client. */
function describe(err: unknown): { status: number; code: string; message: string } {
  if (err instanceof HttpError) return { status: err.status, code: err.code, message: err.message };
  const e = err as { code?: string; statusCode?: number; validation?: unknown; message?: string };
  if (e.validation) return { status: 400, code: 'invalid_request', message: e.message ?? 'invalid request' };
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'malformed_json', message: e.message ?? 'the body is not valid JSON' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'body_too_large', message: 'the request body is too large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'unsupported_media_type', message: 'send the body as application/json' };
  }
  if (err instanceof SyntaxError) return { status: 400, code: 'malformed_json', message: err.message };
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return { status: e.statusCode, code: 'bad_request', message: e.message ?? 'bad request' };
  }
  return { status: 500, code: 'internal', message: 'the tracker failed to serve this request' };
}
