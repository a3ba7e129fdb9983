// `http.accepted`: an activity's HTTP request has its response, found through Node's diagnostics channels.
import dc from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
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
 * one), the path without its query, and the workflow id replaced by `{workflowId}`.
 */
interface Hold {
  point: Promise<void>;
  settled: boolean;
}

const owners = new WeakMap<object, Context>();
const holds = new WeakMap<Context, Hold>();
let installed = false;

function detailOf(ctx: Context, method: string, host: string, path: string): string {
  const workflowId = ctx.info.workflowExecution?.workflowId ?? '';
  const bare = path.split('?')[0];
  return `${method} ${host} ${workflowId ? bare.split(workflowId).join('{workflowId}') : bare}`;
}

function accepted(ctx: Context, detail: string): void {
  const hold: Hold = {
    point: crashPoint('http.accepted', { workflowId: ctx.info.workflowExecution?.workflowId ?? '', detail }),
    settled: false,
  };
  hold.point.then(
    () => (hold.settled = true),
    () => (hold.settled = true),
  );
  holds.set(ctx, hold);
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
    if (ctx) owners.set((message as { request: object }).request, ctx);
  });
  dc.subscribe('undici:request:headers', (message) => {
    const { request } = message as { request: { method: string; origin: string; path: string } };
    const ctx = owners.get(request);
    if (ctx) accepted(ctx, detailOf(ctx, request.method, new URL(request.origin).hostname, request.path));
  });
  dc.subscribe('http.client.request.start', (message) => {
    const { request } = message as { request: ClientRequest };
    const ctx = asyncLocalStorage.getStore();
    if (!ctx) return;
    if (parked(ctx))
      request.destroy(new Error('held by the crash sweep: the activity is parked until its worker is killed'));
    else owners.set(request, ctx);
  });
  dc.subscribe('http.client.response.finish', (message) => {
    const { request } = message as { request: ClientRequest; response: IncomingMessage };
    const ctx = owners.get(request);
    if (ctx) accepted(ctx, detailOf(ctx, request.method, request.host, request.path));
  });

  const realFetch = globalThis.fetch;
  globalThis.fetch = async function heldFetch(input, init) {
    const ctx = asyncLocalStorage.getStore();
    const before = parked(ctx);
    if (before) await before.point; // never: the activity is parked
    const response = await realFetch(input, init);
    const hold = ctx && holds.get(ctx);
    if (hold && !hold.settled) await hold.point;
    return response;
  };
}
