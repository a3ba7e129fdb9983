// A Temporal dev server on a file of its own, which the sweep SIGKILLs and starts again on its file and port.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import { spawnDevServer, waitForDevServer } from '../../common/dev-server';
import { canConnect, freePort } from '../../common/free-port';
import type { AnySearchAttributeKey } from '../../common/search-attribute-flags';
import { cpuSeconds } from '../engine/timings';
import { connectTemporal } from '../../common/temporal-connection';
import { endWithSweep } from './children';

/**
 * The dev server's flags for a sweep: one partition per task queue, so a task reaches the one worker
 * at once with no forwarding between partitions.
 */
export const SWEEP_DEV_SERVER_FLAGS = [
  '--dynamic-config-value',
  'matching.numTaskqueueReadPartitions=1',
  '--dynamic-config-value',
  'matching.numTaskqueueWritePartitions=1',
];

/**
 * The dev server's flags for timers close to their time. Its timer queue reads no task due sooner than
 * `history.timerProcessorMaxTimeShift` from now (1 s by default), so a 100 ms timer, a retry's backoff
 * or a timeout fires about 0.9 s late, and a workflow whose timer races an activity reaches its points
 * in an order that depends on it. At 10 ms they fire within a few milliseconds. Set for the sweeps of
 * users' workflows (`SuiteFactory.preciseTimers`); the agent's suite races no timer against an activity,
 * and its tables are the same either way.
 */
export const PRECISE_TIMER_FLAGS = ['--dynamic-config-value', 'history.timerProcessorMaxTimeShift="10ms"'];

/** The flags of a dev server the sweep starts: {@link SWEEP_DEV_SERVER_FLAGS}, and precise timers if asked. */
export function sweepDevServerFlags(preciseTimers: boolean): string[] {
  return [...SWEEP_DEV_SERVER_FLAGS, ...(preciseTimers ? PRECISE_TIMER_FLAGS : [])];
}

/** The Temporal server a batch's runs live on, and how to kill it when the batch's rows say so. */
export interface BatchTemporal {
  address: string;
  namespace: string;
  client: Client;
  /**
   * SIGKILLs the server, does `whileDown` (the harness kills the worker too), and starts the server
   * again on its database file and port. Absent for a server the sweep may not kill.
   */
  restart?(whileDown?: () => Promise<void>): Promise<void>;
}

/**
 * A Temporal dev server the sweep kills: `temporal server start-dev` on a SQLite file of
 * its own (`--db-filename`), which outlives the process, SIGKILLed when the harness says and started
 * again on the same file and the same port, so its workers and clients reconnect to the address they
 * know. Its client reconnects by itself.
 */
export class KillableServerHost implements BatchTemporal {
  readonly namespace = 'default';
  /** How many times it was SIGKILLed. */
  kills = 0;
  private proc: ChildProcess | null = null;
  /** CPU seconds of the processes it killed, read just before each kill. */
  private cpuOfKilled = 0;
  private log = '';
  private connection!: Connection;
  client!: Client;

  private constructor(
    private readonly dbFile: string,
    private readonly port: number,
    private readonly searchAttributes: readonly AnySearchAttributeKey[],
    private readonly preciseTimers: boolean,
  ) {}

  /**
   * Starts a dev server on `DIR/temporal-LABEL.db` and a free port, with these search attributes
   * registered (default none) and its timers close to their time if asked ({@link PRECISE_TIMER_FLAGS}),
   * and connects a client.
   */
  static async start(
    dir: string,
    label: string,
    searchAttributes: readonly AnySearchAttributeKey[] = [],
    preciseTimers = false,
  ): Promise<KillableServerHost> {
    const server = new KillableServerHost(
      path.join(dir, `temporal-${label}.db`),
      await freePort(),
      searchAttributes,
      preciseTimers,
    );
    await server.spawn();
    server.connection = await connectTemporal(server.address);
    server.client = new Client({ connection: server.connection });
    await server.serving();
    return server;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** The server's process id (for its CPU time); `null` when it is not running. */
  get pid(): number | null {
    return this.proc?.pid ?? null;
  }

  /** SIGKILLs the server (nothing of it is flushed or closed), does `whileDown`, and starts it again on its file and port. */
  async restart(whileDown?: () => Promise<void>): Promise<void> {
    await this.kill();
    this.kills += 1;
    await whileDown?.();
    await this.spawn();
    await this.serving();
  }

  /** CPU seconds every process of this server has used: those killed, and the one serving now. */
  cpuSeconds(): number {
    return this.cpuOfKilled + ((this.proc?.pid && cpuSeconds(this.proc.pid)) || 0);
  }

  /** Stops the server and closes the client. */
  async close(): Promise<void> {
    await this.connection.close().catch(() => {});
    await this.kill();
  }

  private async kill(): Promise<void> {
    const proc = this.proc;
    this.proc = null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = once(proc, 'exit');
    this.cpuOfKilled += cpuSeconds(proc.pid!) ?? 0;
    proc.kill('SIGKILL');
    await exited;
  }

  private async spawn(): Promise<void> {
    const proc = spawnDevServer({
      port: this.port,
      dbFile: this.dbFile,
      searchAttributes: this.searchAttributes,
      flags: [
        // As the sweep's trackers: a commit is in the file (the OS's cache) when the server answers, which
        // any process kill leaves intact; only the WAL's checkpoints wait for the disk (not a power cut).
        '--sqlite-pragma',
        'journal_mode=wal',
        '--sqlite-pragma',
        'synchronous=normal',
        ...sweepDevServerFlags(this.preciseTimers),
      ],
    });
    this.proc = proc;
    // A sweep that exits without closing (an uncaught error, an interrupt) takes its server with it.
    endWithSweep(proc);
    proc.stderr!.on('data', (chunk: Buffer) => {
      this.log = (this.log + chunk.toString()).slice(-10_000);
    });
    await this.until('listen', () => canConnect(this.port));
  }

  /** Waits until the server answers for its namespace (a server that listens may not serve yet). */
  private async serving(): Promise<void> {
    await this.until('serve', () =>
      this.connection
        .withDeadline(Date.now() + 1_000, () =>
          this.connection.workflowService.describeNamespace({ namespace: this.namespace }),
        )
        .then(
          () => true,
          () => false,
        ),
    );
  }

  private async until(what: string, ok: () => Promise<boolean>): Promise<void> {
    const proc = this.proc;
    if (!proc) throw new Error(`the Temporal dev server on ${this.dbFile} is not running`);
    await waitForDevServer(proc, what, ok, { log: () => `${this.dbFile}\n${this.log}` });
  }
}
