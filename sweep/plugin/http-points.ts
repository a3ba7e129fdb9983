// `http.accepted`: an activity's HTTP request has its response, found through Node's diagnostics channels.
import dc from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { asyncLocalStorage, type Context } from '@temporalio/activity';
import { crashPoint } from '../../common/crash-points';

/**
 * `http.accepted <METHOD host path>`: an activity's outgoing HTTP request has its response headers
 * (the receiver acted) and the activity has not read the body. Found through Node's diagnostics
 * channels, with no change to the activity: `undici:request:create` / `undici:request:headers` for
 * `fetch`, `http.client.request.start` / `http.client.response.finish` for `node:http` (both
 * published by Node 20). A request belongs to the activity whose context it was created in.
 *
 * Parking there: a channel's subscriber runs synchronously and cannot wait. For `fetch`, the worker's
 * `fetch` is wrapped so that the activity's `await fetch(...)` waits on the point (the Response is
 * held, body unread). For `node:http`, the activity goes on reading, and its result is held at
 * `activity.returned`; a request it starts meanwhile is destroyed before it is sent. Either way the
 * receiver saw exactly the requests before the point.
 *
 * The detail is stable from run to run: the host without its port (receivers often listen on a random
 * one), the path without its query, and the workflow id replaced by `{workflowId}`. A JSON-RPC request
 * (an MCP client's) adds its method, and a tool call its tool (`POST localhost /mcp tools/call
 * create_issue`), so that a session's setup (`initialize`) is told from its calls.
 */
interface Hold {
  point: Promise<void>;
  settled: boolean;
}

const owners = new WeakMap<object, Context>();
// The async context each request was made in (its activity attempt's), where its point is reached: a
// response's channel message comes in the context of whoever opened the kept connection it came
// on, often another activity's attempt, even another run's.
const scopes = new WeakMap<object, AsyncResource>();
// What a request's JSON-RPC body names (`rpcName`), by request.
const rpcOf = new WeakMap<object, string>();
// The JSON-RPC name of the body of the `fetch` call being made, for the request it creates.
const fetchRpc = new AsyncLocalStorage<string>();
// The first bytes a `node:http` request wrote, read for a JSON-RPC name when its response arrives.
const written = new WeakMap<ClientRequest, Buffer[]>();
const SNIFFED_BYTES = 64 * 1024;

/**
 * The method a JSON-RPC request body names, with the tool of a `tools/call` (`tools/call create_issue`);
 * several for a batch, joined by commas; `''` for any other body.
 */
export function rpcName(body: string): string {
  if (!/^\s*[[{]/.test(body)) return '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return '';
  }
  const one = (m: unknown): string | null => {
    if (typeof m !== 'object' || m === null) return null;
    const { jsonrpc, method, params } = m as { jsonrpc?: unknown; method?: unknown; params?: { name?: unknown } };
    if (jsonrpc !== '2.0' || typeof method !== 'string') return null;
    const tool = method === 'tools/call' && typeof params?.name === 'string' ? ` ${params.name}` : '';
    return `${method}${tool}`;
  };
  const names = (Array.isArray(parsed) ? parsed : [parsed]).map(one);
  return names.length > 0 && names.every((n) => n !== null) ? names.join(',') : '';
}

/** A `fetch` body's JSON-RPC name, when it is text. */
function fetchBodyName(body: unknown): string {
  if (typeof body === 'string') return rpcName(body);
  if (body instanceof Uint8Array) return rpcName(Buffer.from(body).toString('utf8'));
  return '';
}
const holds = new WeakMap<Context, Hold>();
let installed = false;

function detailOf(ctx: Context, method: string, host: string, path: string, rpc = ''): string {
  const workflowId = ctx.info.workflowExecution?.workflowId ?? '';
  const bare = `${path.split('?')[0]}${rpc ? ` ${rpc}` : ''}`;
  return `${method} ${host} ${workflowId ? bare.split(workflowId).join('{workflowId}') : bare}`;
}

function accepted(ctx: Context, detail: string): void {
  const hold: Hold = {
    point: crashPoint('http.accepted', {
      workflowId: ctx.info.workflowExecution?.workflowId ?? '',
      detail,
      execution: ctx.info.workflowExecution?.runId,
    }),
    settled: false,
  };
  hold.point.then(
    () => (hold.settled = true),
    () => (hold.settled = true),
  );
  holds.set(ctx, hold);
}

/** Runs `fn` in the async context the request was made in (see `scopes`). */
function inScope(request: object, fn: () => void): void {
  const scope = scopes.get(request);
  if (scope) scope.runInAsyncScope(fn);
  else fn();
}

/** Whether the activity has a response held at a point that has not let it go (it is parked). */
function parked(ctx: Context | undefined): Hold | null {
  const hold = ctx && holds.get(ctx);
  return hold && !hold.settled ? hold : null;
}

/** Subscribes to the channels and wraps `fetch`, once per process. */
export function watchHttp(): void {
  if (installed) return;
  installed = true;

  dc.subscribe('undici:request:create', (message) => {
    const ctx = asyncLocalStorage.getStore();
    const { request } = message as { request: object };
    if (!ctx) return;
    owners.set(request, ctx);
    scopes.set(request, new AsyncResource('crash-sweep.http-request'));
    const rpc = fetchRpc.getStore();
    if (rpc) rpcOf.set(request, rpc);
  });
  dc.subscribe('undici:request:headers', (message) => {
    const { request } = message as { request: { method: string; origin: string; path: string } };
    const ctx = owners.get(request);
    const host = new URL(request.origin).hostname;
    if (ctx)
      inScope(request, () => accepted(ctx, detailOf(ctx, request.method, host, request.path, rpcOf.get(request))));
  });
  dc.subscribe('http.client.request.start', (message) => {
    const { request } = message as { request: ClientRequest };
    const ctx = asyncLocalStorage.getStore();
    if (!ctx) return;
    if (parked(ctx)) {
      request.destroy(new Error('held by the crash sweep: the activity is parked until its worker is killed'));
      return;
    }
    owners.set(request, ctx);
    scopes.set(request, new AsyncResource('crash-sweep.http-request'));
    sniffBody(request);
  });
  dc.subscribe('http.client.response.finish', (message) => {
    const { request } = message as { request: ClientRequest; response: IncomingMessage };
    const ctx = owners.get(request);
    const rpc = rpcName(Buffer.concat(written.get(request) ?? []).toString('utf8'));
    if (ctx) inScope(request, () => accepted(ctx, detailOf(ctx, request.method, request.host, request.path, rpc)));
  });

  const realFetch = globalThis.fetch;
  globalThis.fetch = async function heldFetch(input, init) {
    const ctx = asyncLocalStorage.getStore();
    const before = parked(ctx);
    if (before) await before.point; // never: the activity is parked
    const rpc = fetchBodyName(init?.body);
    const response = await (rpc ? fetchRpc.run(rpc, () => realFetch(input, init)) : realFetch(input, init));
    const hold = ctx && holds.get(ctx);
    if (hold && !hold.settled) await hold.point;
    return response;
  };
}

/** Keeps the first bytes a `node:http` request writes (`write` and `end`), for its JSON-RPC name. */
function sniffBody(request: ClientRequest): void {
  const chunks: Buffer[] = [];
  written.set(request, chunks);
  let size = 0;
  const keep = (chunk: unknown, encoding: unknown) => {
    if (size >= SNIFFED_BYTES || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const bytes =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk)
          : null;
    if (!bytes) return;
    chunks.push(bytes.subarray(0, SNIFFED_BYTES - size));
    size += bytes.length;
  };
  const write = request.write.bind(request) as (...args: unknown[]) => boolean;
  const end = request.end.bind(request) as (...args: unknown[]) => ClientRequest;
  request.write = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return write(...args);
  }) as ClientRequest['write'];
  request.end = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return end(...args);
  }) as ClientRequest['end'];
}
