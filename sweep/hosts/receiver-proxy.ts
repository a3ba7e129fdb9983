// The engine's proxy in front of a declared receiver: it ties each request to its run and carries out the run's receiver fault.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readAll, relay, type RelayedAnswer } from './http-relay';

/** What the engine does to a run's writes at a declared receiver. */
export type ReceiverStrike =
  /** Each write (its method and path, the first time) is passed on; the receiver acts, and dies before its reply gets back. */
  | 'dies'
  /** The run's first write is held before it reaches the receiver, until the run comes back (its next request) or the cap. */
  | 'slow'
  /** A partition: the run's first write is lost on its way (nothing happens) until the run comes back. */
  | 'request-lost'
  /** A partition: the receiver acts on the run's first write, and its reply is lost, until the run comes back. */
  | 'reply-lost';

/** What the proxy needs besides its receiver's URL. */
export interface ProxyOptions {
  /** The header that names a request's run (the plugin's `RUN_HEADER`), lower case. */
  runHeader: string;
  /** How long a held write waits for its run at most. */
  capMs: number;
  /** SIGKILLs the receiver's process and starts it again on its port. */
  die: () => Promise<void>;
}

/** Methods that change nothing: never held. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * An HTTP proxy the workers reach instead of a declared receiver. The sweep's plugin names the run of
 * every request an activity makes (`runHeader`, `x-crash-sweep-workflow-id`), so the proxy knows whose request it
 * is and what its row's fault does to it ({@link strike}); a request of no run, or of a run without a
 * receiver fault, is passed on as it came, and its answer back as it came.
 *
 * A death is exact, whatever the timing: once the receiver has answered a write that must meet one,
 * the proxy passes nothing more on, waits until no other request is in flight to the receiver, has it
 * SIGKILLed and started again on its port (`die`), and only then cuts the held reply's connection and
 * passes on what waited meanwhile. So the death fails the held calls and no other.
 *
 * A partition loses each run's first write on its way (`request-lost`: nothing happens) or the
 * receiver's reply to it (`reply-lost`: it happened), and the caller cannot tell which; it heals when
 * the run comes back (its next request), and the held connection is cut then, as a healed network's
 * stale one is.
 *
 * What ends a held write is an event, never a clock: its run's next request.
 * `capMs` only keeps a run that never comes back from holding a write for ever; a hold that ends there
 * is remembered ({@link ranOut}), for the sweep to count that run as an error.
 */
export class ReceiverProxy {
  /** The receiver's deaths, and the replies they cut off. */
  readonly deaths = { kills: 0, requests: 0 };
  private readonly strikes = new Map<string, ReceiverStrike>();
  private readonly heldReplies = new Set<http.ServerResponse>();
  /** The writes (`run METHOD path`) that met a death: each meets one. */
  private readonly died = new Set<string>();
  /** The runs whose first write was held (slow, or a partition), and the release of those held now. */
  private readonly firstWriteHeld = new Set<string>();
  private readonly heldWrites = new Map<string, () => void>();
  /** Who is told when a run's first write starts to hang behind a partition (an operator). */
  private readonly onHeld = new Map<string, () => void>();
  private readonly timedOut = new Set<string>();
  /** Requests passed on and not yet answered. */
  private inFlight = 0;
  /** A held reply waits for the receiver's death. */
  private deathDue = false;
  /** The receiver's death and restart under way: every request waits for it. */
  private dying: Promise<void> | null = null;
  /** Why the receiver did not come back, if it did not. */
  private broken: Error | null = null;

  private constructor(
    private readonly server: http.Server,
    private readonly upstream: URL,
    private readonly options: ProxyOptions,
  ) {
    server.on('request', (req, res) => void this.serve(req, res));
  }

  /** Starts a proxy to the receiver at `upstream` on a free port of 127.0.0.1. */
  static async start(upstream: string, options: ProxyOptions): Promise<ReceiverProxy> {
    const server = http.createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return new ReceiverProxy(server, new URL(upstream), options);
  }

  /** The URL the workers use instead of the receiver's. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** What the proxy does to the writes of the run `workflowId` (`undefined`: nothing). */
  strike(workflowId: string, strike: ReceiverStrike | undefined): void {
    if (strike) this.strikes.set(workflowId, strike);
    else this.strikes.delete(workflowId);
  }

  /** Tells `held` once the run's first write starts to hang behind a partition (lost, or its reply lost once the receiver has acted). */
  whenHeld(workflowId: string, held: () => void): void {
    this.onHeld.set(workflowId, held);
  }

  /** Whether a held write of the run ended at the cap, with no request of the run to end it. */
  ranOut(workflowId: string): boolean {
    return this.timedOut.has(workflowId);
  }

  /** Why the receiver is gone for good (it did not come back after a death), if it is. */
  get failure(): string | undefined {
    return this.broken?.message;
  }

  /** Cuts every held connection and stops listening. */
  async close(): Promise<void> {
    await this.dying;
    this.cutHeld();
    for (const release of [...this.heldWrites.values()]) release();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = await readAll(req);
    const header = req.headers[this.options.runHeader];
    const run = typeof header === 'string' ? header : undefined;
    const strike = run === undefined ? undefined : this.strikes.get(run);
    const write = !READS.has(req.method ?? 'GET');
    const what = `${req.method} ${(req.url ?? '/').split('?')[0]}`;
    // A run that comes back while its first write is held: a partition heals first (its held connection
    // is cut, as a healed network's stale one is); a slow receiver answers this request first, then the held one.
    const cameBack = run === undefined ? undefined : this.heldWrites.get(run);
    if (cameBack && strike !== 'slow') cameBack();
    const then = strike === 'slow' ? cameBack : undefined;
    if (run === undefined || strike === undefined || !write) return this.answerThen(req, body, res, then);
    if (strike === 'dies') {
      if (this.died.has(`${run} ${what}`)) return this.answerThen(req, body, res, then);
      this.died.add(`${run} ${what}`);
      return this.actAndDie(req, body, res);
    }
    if (this.firstWriteHeld.has(run)) return this.answerThen(req, body, res, then);
    this.firstWriteHeld.add(run);
    if (strike === 'slow') return this.holdWrite(run, () => void this.answer(req, body, res));
    this.holdWrite(run, () => res.destroy());
    // The reply, if the receiver is reached at all, goes nowhere.
    if (strike === 'reply-lost') await this.forward(req, body).catch(() => null);
    this.onHeld.get(run)?.();
  }

  /** Answers a request, then does `then` (a slow receiver's run came back: its held write goes on). */
  private async answerThen(
    req: http.IncomingMessage,
    body: Buffer,
    res: http.ServerResponse,
    then: (() => void) | undefined,
  ): Promise<void> {
    await this.answer(req, body, res);
    then?.();
  }

  /** The receiver acts on a write; its answer goes nowhere, and it dies. */
  private async actAndDie(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): Promise<void> {
    const acted = await this.forward(req, body).then(
      () => true,
      () => false,
    );
    if (!acted) {
      res.destroy();
      return;
    }
    this.heldReplies.add(res);
    this.deathDue = true;
    this.dieWhenQuiet();
  }

  /** Once a held reply waits for it and nothing is in flight: the receiver dies and comes back, then the held replies' callers are cut off. */
  private dieWhenQuiet(): void {
    if (!this.deathDue || this.inFlight > 0 || this.dying) return;
    this.deathDue = false;
    this.dying = (async () => {
      try {
        await this.options.die();
      } catch (err) {
        this.broken = err as Error;
      }
      this.deaths.kills += 1;
      this.deaths.requests += this.heldReplies.size;
      this.cutHeld();
    })().finally(() => {
      this.dying = null;
      // A reply held while this death was under way waits for the next.
      this.dieWhenQuiet();
    });
  }

  /** Cuts the connections of the held replies (the receiver that made them is dead): their callers see the call fail. */
  private cutHeld(): void {
    for (const res of this.heldReplies) res.destroy();
    this.heldReplies.clear();
  }

  /** Holds a run's first write until the run's next request, or the cap; then `onRelease` (once). */
  private holdWrite(run: string, onRelease: () => void): void {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(timer);
      this.heldWrites.delete(run);
      onRelease();
    };
    const timer = setTimeout(() => {
      this.timedOut.add(run);
      release();
    }, this.options.capMs);
    this.heldWrites.set(run, release);
  }

  /** Passes a request on and its whole answer back; a receiver that cannot be reached cuts the caller's connection. */
  private async answer(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): Promise<void> {
    try {
      const answer = await this.forward(req, body);
      const { 'transfer-encoding': _chunked, connection: _connection, ...headers } = answer.headers;
      res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.length) });
      res.end(answer.body);
    } catch {
      res.destroy();
    }
  }

  /** Passes a request on once no death is under way, and reads its whole answer; counted in flight meanwhile. */
  private async forward(req: http.IncomingMessage, body: Buffer): Promise<RelayedAnswer> {
    while (this.dying) await this.dying;
    if (this.broken) throw this.broken;
    this.inFlight += 1;
    try {
      return await relay(this.upstream, req, body, true);
    } finally {
      this.inFlight -= 1;
      this.dieWhenQuiet();
    }
  }
}
