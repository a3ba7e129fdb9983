// `x-crash-sweep-workflow-id`: every HTTP request an activity makes names the run it belongs to (opt-in).
import dc from 'node:diagnostics_channel';
import http from 'node:http';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import { asyncLocalStorage } from '@temporalio/activity';

/**
 * The header that names the run a request belongs to: the workflow id of the activity that made it.
 * A receiver's stand-in reads it to tie what it was asked to do to a run, when the request itself
 * carries nothing of the run (a mail activity sends no workflow id).
 */
export const RUN_HEADER = 'x-crash-sweep-workflow-id';

let installed = false;

/** The workflow id of the activity running now, if any. */
function currentRun(): string | undefined {
  return asyncLocalStorage.getStore()?.info.workflowExecution?.workflowId || undefined;
}

type RequestArgs = unknown[];

/**
 * `http.request`'s arguments with the run header added to its options' headers: `(url, options?, cb?)`
 * or `(options, cb?)`, headers as an object or as a flat list of names and values.
 */
function withRunHeader(args: RequestArgs, workflowId: string): RequestArgs {
  const urlFirst = typeof args[0] === 'string' || args[0] instanceof URL;
  const at = urlFirst ? 1 : 0;
  const given = args[at];
  if (urlFirst && (typeof given !== 'object' || given === null)) {
    // (url) or (url, callback): options of our own, with the header alone.
    return [args[0], { headers: { [RUN_HEADER]: workflowId } }, ...args.slice(1)];
  }
  const options = given as http.RequestOptions;
  const headers = Array.isArray(options.headers)
    ? [...(options.headers as string[]), RUN_HEADER, workflowId]
    : { ...options.headers, [RUN_HEADER]: workflowId };
  const copy = [...args];
  copy[at] = { ...options, headers };
  return copy;
}

/** Wraps a module's `request` and `get` so that a request made in an activity carries the header. */
function wrap(mod: typeof http | typeof https): void {
  const original = mod.request as (...args: RequestArgs) => http.ClientRequest;
  const request = (...args: RequestArgs) => {
    const workflowId = currentRun();
    return original.apply(mod, workflowId ? withRunHeader(args, workflowId) : args);
  };
  (mod as { request: unknown }).request = request;
  // Node's own `get` calls its internal `request`, not the module's: the same as `get` does, on ours.
  (mod as { get: unknown }).get = (...args: RequestArgs) => {
    const req = request(...args);
    req.end();
    return req;
  };
}

/**
 * Adds {@link RUN_HEADER} to every HTTP request an activity makes, once per process: `fetch` through
 * undici's `undici:request:create` channel (whose subscribers may add a header), `node:http` and
 * `node:https` by wrapping their `request` and `get` (and, with `syncBuiltinESMExports`, their ES module
 * bindings too). A request made outside an activity is not touched.
 */
export function addRunHeader(): void {
  if (installed) return;
  installed = true;
  dc.subscribe('undici:request:create', (message) => {
    const workflowId = currentRun();
    if (workflowId)
      (message as { request: { addHeader(name: string, value: string): void } }).request.addHeader(
        RUN_HEADER,
        workflowId,
      );
  });
  wrap(http);
  wrap(https);
  syncBuiltinESMExports();
}
