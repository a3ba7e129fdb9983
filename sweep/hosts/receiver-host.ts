// A receiver process the harness kills mid-request and starts again on its port, and when to kill it.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import readline from 'node:readline';
import { parseEventLine } from '../worker/line-protocol';
import { endWithSweep, killAndWait } from './children';
import { freePort } from '../../common/free-port';
import type { BatchPlan, SuiteRun } from '../engine/suite';

/** How a receiver's process starts under the harness. */
export interface ReceiverLaunch {
  /** Its name, for error messages. */
  name: string;
  /** `node [...args]`, given the port to listen on (the same one at every restart). */
  args(port: number): string[];
  env: Record<string, string>;
  cwd: string;
  /** The line on stdout that says it listens, with its URL in the first group. */
  listening: RegExp;
  /**
   * Reach it through a proxy of the harness's, which keeps the port open while the process restarts:
   * a connection made meanwhile waits for the next process instead of being refused, so how soon a
   * caller comes back after a kill never changes what it sees. Default `false`.
   */
  behindProxy?: boolean;
}

/**
 * A receiver the sweep kills (an MCP server, the tracker): a process that reports each request it
 * holds at a crash point (a `parked` event on stderr), SIGKILLed when the harness chooses and started
 * again on the same port, so callers keep its URL. The next process is launched ahead, loaded and
 * waiting for a line on stdin, so a restart takes milliseconds, not the second a fresh Node needs.
 */
export class ReceiverHost {
  /** Requests held in the serving process: the `workflowId` its event named (whose request it is), with its detail. */
  readonly parked = new Map<string, string>();
  private serving: ChildProcess | null = null;
  private standby: { proc: ChildProcess; listening: Promise<string> } | null = null;
  private port = 0;
  private log = '';
  url = '';

  private proxy: HoldingProxy | null = null;

  constructor(private readonly launchSpec: ReceiverLaunch) {}

  get name(): string {
    return this.launchSpec.name;
  }

  /** Starts serving (on a free port the first time, the same port after) and waits until it listens. */
  async start(): Promise<void> {
    // Below the ephemeral range, so that no outgoing connection takes it while the receiver is down.
    if (this.port === 0) this.port = await freePort();
    const next = this.standby ?? this.launch();
    this.standby = null;
    this.parked.clear();
    this.serving = next.proc;
    next.proc.stdin!.end('go\n');
    const url = await next.listening;
    this.port = Number(new URL(url).port);
    if (this.launchSpec.behindProxy) {
      this.proxy ??= await HoldingProxy.start();
      this.proxy.upstream = this.port;
      this.url = `http://127.0.0.1:${this.proxy.port}`;
    } else {
      this.url = url;
    }
    this.standby = this.launch();
  }

  /** SIGKILLs the serving process, failing its held requests mid-call, and waits until it is gone. */
  async kill(): Promise<void> {
    await killAndWait(this.serving);
  }

  /** Kills the serving process and lets the standby serve. */
  async restart(): Promise<void> {
    await this.kill();
    await this.start();
  }

  /** Stops both processes. */
  async close(): Promise<void> {
    await Promise.all([killAndWait(this.serving), killAndWait(this.standby?.proc ?? null)]);
    this.standby = null;
    this.proxy?.close();
  }

  private launch(): { proc: ChildProcess; listening: Promise<string> } {
    const spec = this.launchSpec;
    const proc = spawn(process.execPath, spec.args(this.port), {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    endWithSweep(proc);
    readline.createInterface({ input: proc.stderr! }).on('line', (line) => {
      const event = parseEventLine(line);
      if (event?.type === 'parked') this.parked.set(event.workflowId, event.detail);
      else if (!event) this.log = `${this.log}${line}\n`.slice(-10_000);
    });
    const listening = new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: proc.stdout! }).on('line', (line) => {
        const m = line.match(spec.listening);
        if (m) resolve(m[1]);
      });
      proc.once('exit', () => reject(new Error(`${spec.name} exited before it listened:\n${this.log}`)));
    });
    listening.catch(() => {}); // a standby killed at close never listens
    return { proc, listening };
  }
}

/**
 * A TCP proxy on a port of its own to a receiver's port. A connection whose upstream is refused (the
 * receiver is between a kill and its restart) tries again every few milliseconds for up to 10 s; one
 * whose upstream dies is cut, as a caller of the dead receiver would see it.
 */
class HoldingProxy {
  upstream = 0;
  private readonly sockets = new Set<net.Socket>();

  private constructor(private readonly server: net.Server) {
    server.on('connection', (client) => this.serve(client));
  }

  static async start(): Promise<HoldingProxy> {
    const server = net.createServer({ pauseOnConnect: true });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return new HoldingProxy(server);
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  private serve(client: net.Socket): void {
    this.sockets.add(client);
    let up: net.Socket | null = null;
    client.on('error', () => up?.destroy());
    client.once('close', () => {
      this.sockets.delete(client);
      up?.destroy();
    });
    const since = Date.now();
    const attempt = () => {
      const u = net.connect(this.upstream, '127.0.0.1');
      up = u;
      let connected = false;
      u.once('connect', () => {
        connected = true;
        this.sockets.add(u);
        client.pipe(u);
        u.pipe(client);
        client.resume();
      });
      u.on('error', (err: NodeJS.ErrnoException) => {
        if (!connected && err.code === 'ECONNREFUSED' && Date.now() - since < 10_000 && !client.destroyed) {
          setTimeout(attempt, 5);
          return;
        }
        client.destroy();
      });
      u.once('close', () => {
        this.sockets.delete(u);
        if (connected) client.destroy();
      });
    };
    attempt();
  }

  close(): void {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
  }
}

/** A receiver the harness may kill, and the runs of a batch that use it. */
export interface ReceiverKill {
  host: ReceiverHost;
  /** The batch's runs whose requests go to it. */
  runs: readonly SuiteRun[];
  /** Which run (its workflow id) a held request belongs to, from the id its `parked` event named. */
  ownerOf(held: string): string | undefined;
}

/**
 * Kills receivers mid-request for a batch: once every run that uses a receiver is held there, parked
 * at its worker kill, ended or not started yet, no other request can be in flight to it, so a SIGKILL fails exactly
 * the held requests, whatever the timing; then the receiver starts again on its port.
 */
export class ReceiverKills {
  constructor(
    private readonly targets: readonly ReceiverKill[],
    /** Counts kills, and the requests they cut off. */
    private readonly counter: { kills: number; requests: number },
  ) {}

  async poll({ isParked, ended, notStarted }: Parameters<NonNullable<BatchPlan['poll']>>[0]): Promise<void> {
    for (const { host, runs, ownerOf } of this.targets) {
      if (host.parked.size === 0) continue;
      const held = new Set<string>();
      for (const [id, detail] of host.parked) {
        const owner = ownerOf(id);
        if (!owner) throw new Error(`${host.name} held a request of no run in this batch: ${detail}`);
        held.add(owner);
      }
      const busy = (id: string) => !ended.has(id) && !notStarted.has(id) && !isParked(id) && !held.has(id);
      if (runs.some((r) => busy(r.workflowId))) continue;
      this.counter.requests += host.parked.size;
      await host.restart();
      this.counter.kills += 1;
    }
  }
}
