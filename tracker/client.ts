// The tracker's HTTP client: what a tool call and a lookup send, and how each failure is told apart.
import { cutText } from '../common/cut-text';
import { ReceiverRefusedError, ReceiverUnavailableError } from '../common/receiver-errors';

/* The tracker's HTTP client: plain fetch and plain errors, usable from an activity and from the MCP server alike. */

/** A tracker reply. */
export interface TrackerReply<T = unknown> {
  status: number;
  body: T;
  /** The tracker replayed its first response to this key instead of acting again. */
  replayed: boolean;
  /** How long the tracker keeps keys (`Idempotency-Key-Retention-Seconds`), when it said so. */
  retentionMs?: number;
  /** How long after its arrival a request may still commit (`Commit-Deadline-Ms`), when the tracker said so. */
  commitDeadlineMs?: number;
}

/**
 * The tracker a call goes to, and the token it may carry: the worker's own tracker (`own`) gets the
 * worker's token; a tracker a run names gets none, so a run's input cannot lead the token elsewhere.
 */
export function reachTracker(
  own: { trackerUrl?: string; trackerToken?: string },
  named: string | undefined,
): { trackerUrl: string; trackerToken?: string } | null {
  const trackerUrl = named ?? own.trackerUrl;
  if (!trackerUrl) return null;
  const isOwn = own.trackerUrl !== undefined && new URL(trackerUrl).origin === new URL(own.trackerUrl).origin;
  return isOwn && own.trackerToken ? { trackerUrl, trackerToken: own.trackerToken } : { trackerUrl };
}

/** Options of one tracker request. */
export interface RequestOptions {
  /** Sent as `Idempotency-Key`. */
  key?: string;
  /** Called when the tracker's reply has arrived and before it is read: the `tracker.accepted` boundary. */
  onReply?: () => Promise<void>;
  signal?: AbortSignal;
  /** Statuses that are answers rather than refusals (e.g. 404 for a lookup). Default none. */
  accept?: number[];
  /** The tracker's bearer token (`TRACKER_TOKEN`), for a tracker that requires one. */
  token?: string;
}

/**
 * One HTTP request to the tracker. A 4xx (other than those in `accept`) is a {@link ReceiverRefusedError};
 * a 5xx or a network error is a {@link ReceiverUnavailableError}, marked `notSent` when the connection
 * was refused, so nothing reached the tracker.
 */
export async function trackerRequest<T>(
  baseUrl: string,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  options: RequestOptions = {},
): Promise<TrackerReply<T>> {
  const url = `${baseUrl.replace(/\/+$/, '')}${path}`;
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (options.key) headers['idempotency-key'] = options.key;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: options.signal,
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    throw new ReceiverUnavailableError(
      url,
      null,
      `tracker unreachable at ${url}: ${(err as Error).message}${cause?.code ? ` (${cause.code})` : ''}`,
      cause?.code === 'ECONNREFUSED',
    );
  }
  if (options.onReply) await options.onReply();
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (res.status >= 500 || (res.status === 409 && (parsed as { error?: string })?.error === 'request_in_flight')) {
    // 409 request_in_flight: an earlier request with the key has not committed yet; asking again later is right.
    const why = res.status === 409 ? ': a request with this key is still in flight' : '';
    throw new ReceiverUnavailableError(url, res.status, `tracker failed with ${res.status} at ${method} ${path}${why}`);
  }
  if (res.status === 422 && (parsed as { error?: string })?.error === 'idempotency_key_reused') {
    // Someone used the call's key first: not a refusal of this call to tell the model, but a record to show a person.
    const first = (parsed as { first?: unknown }).first;
    throw new ReceiverRefusedError(
      `the tracker holds this call's idempotency key for another request (${method} ${path} was refused with 422); ` +
        `the key was first used for ${first === undefined ? 'a request the tracker does not show' : cutJson(first)}`,
      'KeyConflict',
    );
  }
  if (res.status >= 400 && !(options.accept ?? []).includes(res.status)) {
    const message = (parsed as { message?: string })?.message ?? text;
    throw new ReceiverRefusedError(
      `tracker refused ${method} ${path} with ${res.status}: ${message}`,
      'TrackerRefused',
    );
  }
  const retention = Number(res.headers.get('idempotency-key-retention-seconds'));
  const deadline = Number(res.headers.get('commit-deadline-ms'));
  return {
    status: res.status,
    body: parsed as T,
    replayed: res.headers.get('idempotent-replayed') === 'true',
    ...(retention > 0 ? { retentionMs: retention * 1000 } : {}),
    ...(deadline > 0 ? { commitDeadlineMs: deadline } : {}),
  };
}

/** A value's JSON for a message a person reads, cut at 2,000 characters. */
export function cutJson(value: unknown): string {
  return cutText(JSON.stringify(value) ?? String(value), 2_000);
}
