// The tracker's tools (create_issue, comment_on_issue, search_issues) and the lookup, free of Temporal.
import { ReceiverRefusedError } from '../common/receiver-errors';
import { trackerRequest, type RequestOptions } from './client';

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

/** A tool's answer: the JSON text the model gets, whether the tracker replayed it, and how long it keeps keys. */
export interface ToolOutput {
  output: string;
  replayed: boolean;
  retentionMs?: number;
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

function str(args: Record<string, unknown>, name: string, required = true): string | undefined {
  const value = args[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || (required && value.length === 0)) {
    throw new ReceiverRefusedError(`argument ${name} must be a non-empty string`, 'InvalidArguments');
  }
  return value;
}

/** Runs one tracker tool call. Bad arguments are a {@link ReceiverRefusedError}, so the model hears why. */
export async function callTrackerTool(
  tool: string,
  args: Record<string, unknown>,
  ctx: ToolCallContext,
): Promise<ToolOutput> {
  const repo = encodeURIComponent(ctx.repo);
  const opts: RequestOptions = { signal: ctx.signal, key: ctx.sendKey ? ctx.key : undefined, token: ctx.trackerToken };
  switch (tool) {
    case 'create_issue': {
      const labels = args.labels;
      if (labels !== undefined && (!Array.isArray(labels) || labels.some((l) => typeof l !== 'string'))) {
        throw new ReceiverRefusedError('argument labels must be an array of strings', 'InvalidArguments');
      }
      const body = { title: str(args, 'title'), body: withTrace(str(args, 'body', false) ?? '', ctx.key), labels };
      const reply = await trackerRequest(ctx.trackerUrl, 'POST', `/repos/${repo}/issues`, body, {
        ...opts,
        onReply: ctx.onReply,
      });
      return { output: JSON.stringify(reply.body), replayed: reply.replayed, retentionMs: reply.retentionMs };
    }
    case 'comment_on_issue': {
      const number = args.number;
      if (typeof number !== 'number' || !Number.isInteger(number) || number < 1) {
        throw new ReceiverRefusedError('argument number must be a positive integer', 'InvalidArguments');
      }
      const body = { body: withTrace(str(args, 'body')!, ctx.key) };
      const reply = await trackerRequest(ctx.trackerUrl, 'POST', `/repos/${repo}/issues/${number}/comments`, body, {
        ...opts,
        onReply: ctx.onReply,
      });
      return { output: JSON.stringify(reply.body), replayed: reply.replayed, retentionMs: reply.retentionMs };
    }
    case 'search_issues': {
      const q = encodeURIComponent(str(args, 'query', false) ?? '');
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

/** The receiver's answer to "did this call happen?". */
export interface LookupAnswer {
  happened: boolean;
  output?: string;
  /**
   * Not found yet, but a request may still commit this long after it arrived (the receiver said so):
   * "did not happen" is final only that long after the call's last attempt ended.
   */
  commitDeadlineMs?: number;
}

/**
 * Asks the tracker whether a call happened: by its key when the tracker keeps keys and the key is not
 * known to be expired, else by searching for the trace line the call wrote into the issue or comment
 * it created. An expired key (410) is not "never sent" (404): then the search decides.
 */
export async function lookupTrackerCall(
  tool: string,
  ctx: Omit<ToolCallContext, 'onReply' | 'sendKey'> & { byKey: boolean },
): Promise<LookupAnswer> {
  if (ctx.byKey) {
    const reply = await trackerRequest<{ body: unknown }>(
      ctx.trackerUrl,
      'GET',
      `/idempotency/${encodeURIComponent(ctx.key)}`,
      undefined,
      { signal: ctx.signal, accept: [404, 410], token: ctx.trackerToken },
    );
    if (reply.status === 404) return { happened: false, ...deadlineOf(reply) };
    if (reply.status === 200) return { happened: true, output: JSON.stringify(reply.body.body) };
  }
  const trace = traceLine(ctx.key);
  const reply = await trackerRequest<{
    items: Array<Record<string, unknown> & { body: string; comments: Array<{ body: string }> }>;
  }>(ctx.trackerUrl, 'GET', `/repos/${encodeURIComponent(ctx.repo)}/issues?q=${encodeURIComponent(trace)}`, undefined, {
    signal: ctx.signal,
    token: ctx.trackerToken,
  });
  for (const issue of reply.body.items) {
    if (tool === 'create_issue' && issue.body.includes(trace)) {
      const { comments: _comments, ...created } = issue;
      return { happened: true, output: JSON.stringify(created) };
    }
    const comment = issue.comments.find((c) => c.body.includes(trace));
    if (tool === 'comment_on_issue' && comment) return { happened: true, output: JSON.stringify(comment) };
  }
  return { happened: false, ...deadlineOf(reply) };
}

function deadlineOf(reply: { commitDeadlineMs?: number }): { commitDeadlineMs?: number } {
  return reply.commitDeadlineMs ? { commitDeadlineMs: reply.commitDeadlineMs } : {};
}
