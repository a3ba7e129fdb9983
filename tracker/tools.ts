// The tracker's tools (create_issue, comment_on_issue, search_issues) and the lookup, free of Temporal.
import { canonicalJson } from '../common/canonical-json';
import { ReceiverRefusedError } from '../common/receiver-errors';
import { cutJson, trackerRequest, type RequestOptions } from './client';
import type { KeyedRequest } from './errors';
import { MAX_KEY_LENGTH } from '../common/key';
import { checkArgs, trackerToolSpec } from './tool-args';
import type { TrackerToolSpec } from './tool-specs';
import type { LookupAnswer, ToolReply } from '../activities/receiver-answers';

/** What a tool call needs to reach the tracker. */
export interface ToolCallContext {
  trackerUrl: string;
  /** The tracker's bearer token, if it requires one. Never part of a call's arguments or result. */
  trackerToken?: string;
  repo: string;
  /** The call's idempotency key: sent as a header when `sendKey`, and always written into what the call creates. */
  key: string;
  sendKey: boolean;
  onReply?: () => Promise<void>;
  signal?: AbortSignal;
}

/**
 * The line every effectful call writes into what it creates. A keyless receiver keeps no keys, but a
 * search for this line tells whether the call happened: the lookup rung against such a receiver.
 */
export function traceLine(key: string): string {
  return `idempotency-key: ${key}`;
}

function withTrace(body: string, key: string): string {
  return `${body}\n\n<!-- ${traceLine(key)} -->`;
}

/**
 * The most a call's trace line adds to what it writes (a key of the longest length a key may have):
 * room the tracker's routes leave beyond what a tool takes.
 */
export const TRACE_ROOM = withTrace('', 'k'.repeat(MAX_KEY_LENGTH)).length;

/** A model's arguments for `tool`, checked against its spec; a refusal says which argument is wrong. */
function checked(tool: TrackerToolSpec['name'], args: Record<string, unknown>): Record<string, unknown> {
  const check = checkArgs(trackerToolSpec(tool), args);
  if (!check.ok) throw new ReceiverRefusedError(`${tool}: ${check.why}`, 'InvalidArguments');
  return args;
}

/**
 * The request a writing tool call makes: its method, path and body, as the tracker keeps it beside the
 * call's key. A lookup matches what it finds against this, so only a record of this very call counts.
 */
export function trackerWriteOf(
  tool: string,
  args: Record<string, unknown>,
  ctx: { repo: string; key: string },
): KeyedRequest {
  const repo = encodeURIComponent(ctx.repo);
  switch (tool) {
    case 'create_issue': {
      const { title, body, labels } = checked(tool, args) as { title: string; body: string; labels?: string[] };
      return { method: 'POST', path: `/repos/${repo}/issues`, body: { title, body: withTrace(body, ctx.key), labels } };
    }
    case 'comment_on_issue': {
      const { number, body } = checked(tool, args) as { number: number; body: string };
      return {
        method: 'POST',
        path: `/repos/${repo}/issues/${number}/comments`,
        body: { body: withTrace(body, ctx.key) },
      };
    }
    default:
      throw new ReceiverRefusedError(`unknown tool ${tool}`, 'UnknownTool');
  }
}

/** Whether two keyed requests are the same: method, path and body (as JSON, field order aside). */
export function sameRequest(a: KeyedRequest, b: KeyedRequest): boolean {
  // Through JSON first: a field left undefined is not sent, so it is not kept either.
  const json = (r: KeyedRequest) =>
    canonicalJson(JSON.parse(JSON.stringify({ m: r.method, p: r.path, b: r.body ?? null })));
  return json(a) === json(b);
}

/** Runs one tracker tool call. Bad arguments are a {@link ReceiverRefusedError}, so the model hears why. */
export async function callTrackerTool(
  tool: string,
  args: Record<string, unknown>,
  ctx: ToolCallContext,
): Promise<ToolReply> {
  const repo = encodeURIComponent(ctx.repo);
  const opts: RequestOptions = { signal: ctx.signal, key: ctx.sendKey ? ctx.key : undefined, token: ctx.trackerToken };
  switch (tool) {
    case 'create_issue':
    case 'comment_on_issue': {
      const write = trackerWriteOf(tool, args, ctx);
      const reply = await trackerRequest(ctx.trackerUrl, 'POST', write.path, write.body, {
        ...opts,
        onReply: ctx.onReply,
      });
      return { output: JSON.stringify(reply.body), replayed: reply.replayed, retentionMs: reply.retentionMs };
    }
    case 'search_issues': {
      const q = encodeURIComponent((checked(tool, args) as { query: string }).query);
      const reply = await trackerRequest<{ items: Array<{ number: number; title: string }> }>(
        ctx.trackerUrl,
        'GET',
        `/repos/${repo}/issues?q=${q}`,
        undefined,
        { signal: ctx.signal, token: ctx.trackerToken },
      );
      // The model needs what was found, not every body and comment.
      const items = reply.body.items.map((i) => ({ number: i.number, title: i.title }));
      return { output: JSON.stringify({ items }), replayed: false };
    }
    default:
      throw new ReceiverRefusedError(`unknown tool ${tool}`, 'UnknownTool');
  }
}

/**
 * Asks the tracker whether a call happened: by its key when the tracker keeps keys and the key is not
 * known to be expired, else by searching for the trace line the call wrote into the issue or comment
 * it created. An expired key (410) is not "never sent" (404): then the search decides.
 *
 * "It happened" only for a record of this very call: by key, the request the tracker kept under the
 * key must be the one this call makes (`trackerWriteOf`); by search, the issue or comment holding the
 * trace must have the call's own fields, since anyone who can file an issue can write a trace line.
 * A record that does not match is a `mismatch`, for a person to judge.
 */
export async function lookupTrackerCall(
  tool: string,
  ctx: Omit<ToolCallContext, 'onReply' | 'sendKey'> & { byKey: boolean; args: Record<string, unknown> },
): Promise<LookupAnswer> {
  const expected = trackerWriteOf(tool, ctx.args, ctx);
  if (ctx.byKey) {
    const reply = await trackerRequest<{ body: unknown; request?: KeyedRequest }>(
      ctx.trackerUrl,
      'GET',
      `/idempotency/${encodeURIComponent(ctx.key)}`,
      undefined,
      { signal: ctx.signal, accept: [404, 410], token: ctx.trackerToken },
    );
    if (reply.status === 404) return { happened: false, ...deadlineOf(reply) };
    if (reply.status === 200) {
      const kept = reply.body.request;
      if (kept && sameRequest(kept, expected)) return { happened: true, output: JSON.stringify(reply.body.body) };
      return {
        happened: false,
        mismatch: kept
          ? `under this call's key the tracker keeps ${cutJson(kept)}, not this call's ${cutJson(expected)}`
          : "the tracker keeps a response under this call's key but not the request it answered, so it cannot be matched to this call",
      };
    }
  }
  const trace = traceLine(ctx.key);
  const reply = await trackerRequest<{
    items: Array<Record<string, unknown> & { body: string; comments: Array<{ body: string }> }>;
  }>(ctx.trackerUrl, 'GET', `/repos/${encodeURIComponent(ctx.repo)}/issues?q=${encodeURIComponent(trace)}`, undefined, {
    signal: ctx.signal,
    token: ctx.trackerToken,
  });
  const want = expected.body as { title?: string; body: string; labels?: string[] };
  const traced: unknown[] = [];
  for (const issue of reply.body.items) {
    if (tool === 'create_issue' && issue.body.includes(trace)) {
      const { comments: _comments, ...created } = issue;
      const same =
        issue.body === want.body &&
        issue.title === want.title &&
        canonicalJson(issue.labels ?? []) === canonicalJson(want.labels ?? []);
      if (same) return { happened: true, output: JSON.stringify(created) };
      traced.push(created);
    }
    const comment = issue.comments.find((c) => c.body.includes(trace));
    if (tool === 'comment_on_issue' && comment) {
      if (comment.body === want.body && issue.number === ctx.args.number)
        return { happened: true, output: JSON.stringify(comment) };
      traced.push(comment);
    }
  }
  if (traced.length > 0)
    return {
      happened: false,
      mismatch: `the tracker holds ${cutJson(traced)} with this call's trace line, but not this call's fields ${cutJson(want)}`,
    };
  return { happened: false, ...deadlineOf(reply) };
}

function deadlineOf(reply: { commitDeadlineMs?: number }): { commitDeadlineMs?: number } {
  return reply.commitDeadlineMs ? { commitDeadlineMs: reply.commitDeadlineMs } : {};
}
