// An HTTP proxy in front of a receiver that loses a run's first write, or its reply, until the run comes back.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readAll, relay } from './http-relay';

/** What the network loses: the request on its way to the receiver, or the receiver's reply on its way back. */
export type Lost = 'request' | 'reply';

/**
 * A network partition between a caller and a receiver, with no process dying: an HTTP proxy the
 * caller reaches instead of the receiver. Each run's first write (its first `POST` under
 * `/repos/REPO/`, the run's own repository) meets the partition:
 * - `request`: the proxy takes the request and never passes it on; nothing happens at the receiver;
 * - `reply`: the proxy passes it on, the receiver acts and answers, and the proxy drops the answer.
 *
 * Either way the caller gets no answer and cannot tell the two apart. The partition lasts until the
 * run comes back (its next request of the repository reaches the proxy: a retry, or a lookup); then
 * the held connection is cut, as a healed network's stale connection is. What ends it is that request,
 * never a clock, so a run does the same thing however late its caller comes back. `capMs` only keeps
 * a caller that never comes back from holding a connection for ever; a hold that ends there is
 * remembered ({@link ranOut}), for the sweep to count that run as an error.
 *
 * Every other request is passed on as it came, and its answer back as it came. A run's watcher
 * ({@link watch}) is told when its write's connection starts to hang (an operator who acts on a stuck call).
 */
export class PartitionProxy {
  private readonly partitioned = new Set<string>();
  private readonly held = new Map<string, Set<() => void>>();
  private readonly timedOut = new Set<string>();
  private readonly watchers = new Map<string, () => void>();

  private constructor(
    private readonly server: http.Server,
    private readonly upstream: URL,
    readonly lost: Lost,
    private readonly capMs: number,
  ) {
    server.on('request', (req, res) => void this.serve(req, res));
  }

  /** Starts a proxy to the receiver at `upstream` on a free port of 127.0.0.1. */
  static async start(upstream: string, lost: Lost, capMs: number): Promise<PartitionProxy> {
    const server = http.createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return new PartitionProxy(server, new URL(upstream), lost, capMs);
  }

  /** The URL a caller uses instead of the receiver's. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /**
   * Tells `onHeld` once `repo`'s write starts to hang: with its request lost, as soon as it arrives;
   * with its reply lost, once the receiver has acted. One watcher per repository, the last one given.
   */
  watch(repo: string, onHeld: () => void): void {
    this.watchers.set(repo, onHeld);
  }

  /** Whether a partition of `repo` ended at the cap, with no request of the run to end it. */
  ranOut(repo: string): boolean {
    return this.timedOut.has(repo);
  }

  /** Cuts every held connection and stops listening. */
  async close(): Promise<void> {
    for (const heals of this.held.values()) for (const heal of [...heals]) heal();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = await readAll(req);
    const repo = repoOf(req.url ?? '');
    if (repo !== null) this.heal(repo);
    if (repo !== null && req.method === 'POST' && !this.partitioned.has(repo)) {
      this.partitioned.add(repo);
      this.hold(repo, res);
      // The answer, if the receiver is reached at all, goes nowhere.
      if (this.lost === 'reply') await relay(this.upstream, req, body).catch(() => null);
      this.watchers.get(repo)?.();
      return;
    }
    try {
      const answer = await relay(this.upstream, req, body);
      // The whole answer was read: it goes back with its length, not in the receiver's chunks.
      const { 'transfer-encoding': _chunked, ...headers } = answer.headers;
      res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.length) });
      res.end(answer.body);
    } catch {
      // The receiver is unreachable: so is it through the proxy.
      res.destroy();
    }
  }

  /** Holds the caller's connection with no answer until the run's next request, or the cap. */
  private hold(repo: string, res: http.ServerResponse): void {
    const heals = this.held.get(repo) ?? new Set<() => void>();
    this.held.set(repo, heals);
    const heal = () => {
      clearTimeout(timer);
      heals.delete(heal);
      res.destroy();
    };
    const timer = setTimeout(() => {
      this.timedOut.add(repo);
      heal();
    }, this.capMs);
    heals.add(heal);
  }

  /** Ends the partition of `repo`: its held connections are cut. */
  private heal(repo: string): void {
    for (const heal of [...(this.held.get(repo) ?? [])]) heal();
  }
}

/** The repository a tracker path names (`/repos/REPO/...`), or null for a path that names none. */
function repoOf(url: string): string | null {
  const m = url.match(/^\/repos\/([^/?]+)/);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return null;
  }
}
