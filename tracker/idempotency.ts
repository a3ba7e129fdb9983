// The tracker's idempotency keys: a keyed request claims its key while in flight, its response is kept
// under the key for the retention, a repeat with the same payload gets it replayed, another payload is
// a 422, and `GET /idempotency/:key` says what became of a key.
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { canonicalJson } from '../common/canonical-json';
import { keyProblem } from '../common/key';
import { HttpError, KeyReusedError, type KeyedRequest } from './errors';
import type { Store, StoredResponse } from './store';

/** Header on every keyed response that states how long the tracker keeps a key, in seconds. */
export const RETENTION_HEADER = 'idempotency-key-retention-seconds';
/** Header on a response replayed from an earlier request with the same key. */
export const REPLAYED_HEADER = 'idempotent-replayed';
/** Header that states the tracker's commit deadline, in milliseconds, when it is asked to. */
export const COMMIT_DEADLINE_HEADER = 'commit-deadline-ms';

/** The longest key accepted. */

/** A response as the tracker stores it under a key. */
export interface KeyedResponse {
  status: number;
  body: unknown;
}

/** Options of {@link IdempotencyKeys}. */
export interface IdempotencyOptions {
  store: Store;
  /** How long a key's response is kept, in milliseconds. */
  keyTtlMs: number;
  /** Claim a key while its first request is in flight (`false` is the race the crash sweep shows). */
  claimKeys: boolean;
  /** A request commits within this long of its arrival or never; a claim lapses after it. */
  commitDeadlineMs: number;
  now: () => number;
}

/** The keys of one tracker process, on its database. */
export class IdempotencyKeys {
  /** Tells this process's claims from those of a tracker that ran on the same database before it. */
  private readonly boot = randomUUID();

  constructor(private readonly options: IdempotencyOptions) {}

  /** The retention, as the `Idempotency-Key-Retention-Seconds` header states it. */
  get retentionSeconds(): number {
    return Math.floor(this.options.keyTtlMs / 1000);
  }

  /**
   * The key's stored response if it has one still kept, `in-flight` if another request holds a live
   * claim on it, else `null` after claiming it for this request (unless claims are off). The same key
   * with another payload is a {@link KeyReusedError}, naming the key as its caller sent it (`shown`).
   */
  claim(key: string, fingerprint: string, nowMs: number, shown: string = key): StoredResponse | 'in-flight' | null {
    const { store, keyTtlMs, claimKeys } = this.options;
    return store.transaction(() => {
      const first = store.getKey(key);
      if (first && nowMs - first.createdMs < keyTtlMs) {
        if (first.fingerprint !== fingerprint) throw new KeyReusedError(shown, first.request);
        return first;
      }
      if (first) store.deleteKey(key); // retention has passed: the key counts as new
      if (!claimKeys) return null;
      const claim = store.getClaim(key);
      // A claim older than the commit deadline, or made by an earlier process on this database (one
      // that died mid-request), belongs to a request that can no longer commit.
      if (claim && this.isLive(claim, nowMs)) {
        if (claim.fingerprint !== fingerprint) throw new KeyReusedError(shown);
        return 'in-flight';
      }
      store.putClaim({ key, fingerprint, claimedMs: nowMs, owner: this.boot });
      return null;
    });
  }

  /**
   * Keeps the response under its key, with the request it answers, and ends the claim; call inside
   * the transaction that commits the effect.
   */
  record(key: string, fingerprint: string, response: KeyedResponse, receivedMs: number, request?: KeyedRequest): void {
    this.options.store.putKey({
      key,
      fingerprint,
      status: response.status,
      body: response.body,
      createdMs: receivedMs,
      ...(request ? { request } : {}),
    });
    this.options.store.deleteClaim(key);
  }

  /** Frees the key of a request that committed nothing (its own claim only). */
  release(key: string, receivedMs: number): void {
    this.options.store.deleteClaim(key, receivedMs);
  }

  /**
   * `GET /idempotency/:key`: the first response made with the key, and the request it answered; 409
   * while its request is in flight, 404 if it was never used, 410 once it is older than the retention.
   * `stored` is where the key is kept: the key in its caller's scope (`scopedKey`).
   */
  lookup(key: string, stored: string = key): { key: string; status: number; body: unknown; request?: KeyedRequest } {
    const { store, keyTtlMs, now } = this.options;
    checkKey(key);
    const entry = store.getKey(stored);
    if (!entry) {
      const claim = store.getClaim(stored);
      if (claim && this.isLive(claim, now())) {
        // Not a 404: the request may still commit.
        throw new HttpError(
          409,
          'request_in_flight',
          `a request with key ${key} is still being processed; ask again later`,
        );
      }
      throw new HttpError(404, 'key_not_found', `no request was made with key ${key}`);
    }
    if (now() - entry.createdMs >= keyTtlMs) {
      // Not a 404: the call did happen once, and a repeat now would act again.
      throw new HttpError(
        410,
        'key_expired',
        `key ${key} was used, but more than ${this.retentionSeconds} s ago: its response is no longer kept`,
      );
    }
    return { key, status: entry.status, body: entry.body, ...(entry.request ? { request: entry.request } : {}) };
  }

  /** A claim of this process, younger than the commit deadline: its request may still commit. */
  private isLive(claim: { owner: string; claimedMs: number }, nowMs: number): boolean {
    return claim.owner === this.boot && nowMs - claim.claimedMs <= this.options.commitDeadlineMs;
  }
}

/**
 * Where a key is kept for the caller who sent it: keys are scoped per token, as a payment API scopes
 * them per account, so one token's holder can neither use nor read another's keys. `scope` is empty
 * on a tracker with no token (every caller shares one scope), and the key is kept as it came.
 */
export function scopedKey(scope: string, key: string): string {
  return scope ? `${scope}/${key}` : key;
}

/** The scope of a token: the first 16 hex digits of its SHA-256, so the database holds no token. */
export function tokenScope(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 16);
}

/** The request's key, `undefined` when it sent none; a present but bad key is a 400. */
export function readKey(req: FastifyRequest): string | undefined {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  // Node joins repeated headers into one ("a, b"): count them as they arrived.
  const sent = req.raw.rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase() === 'idempotency-key').length;
  if (Array.isArray(raw) || sent > 1)
    throw new HttpError(400, 'invalid_idempotency_key', 'send one Idempotency-Key header, not several');
  checkKey(raw);
  return raw;
}

/** A key's own checks (`keyProblem`): 1 to 255 visible ASCII characters; else a 400. */
function checkKey(key: string): void {
  const problem = keyProblem(key);
  if (problem) throw new HttpError(400, 'invalid_idempotency_key', problem);
}

/** What a request asks for: method, path and body with sorted keys, so field order does not matter. */
export function fingerprintOf(req: FastifyRequest): string {
  const path = req.url.split('?')[0];
  return createHash('sha256')
    .update(`${req.method} ${path}\n${canonicalJson(req.body)}`)
    .digest('hex');
}
