// One worker generation: a worker process on standby, told to poll, parked at its points and SIGKILLed.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { parseEventLine, type CrashEvent, type CrashPlan } from '../worker/line-protocol';
import type { WorkerLaunch } from './suite';
import { endWithSweep } from '../hosts/children';

/** The package's root, from the sources (`sweep/engine`) as from their compiled copy (`dist/sweep/engine`). */
const UP_TWO = path.resolve(__dirname, '..', '..');
const ROOT = path.basename(UP_TWO) === 'dist' ? path.dirname(UP_TWO) : UP_TWO;

/** How a worker generation starts and where it finds the server. */
export interface GenerationEnv {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  /** A folder for plan files. */
  dir: string;
  /** The worker process: `node [...execArgv] script`, with `env` besides the engine's variables. */
  worker: WorkerLaunch;
}

/** A point event as the harness keeps it. */
export interface SeenPoint {
  index: number;
  name: string;
  detail: string;
}

/**
 * One worker process: a "generation" of the sweep. It runs every scenario's workflow until the point
 * its plan names, parks it there, and is then ended by one SIGKILL; or, with no targets, runs them
 * to their end. Every point it reports is kept per workflow.
 *
 * A generation is launched on standby: it loads the SDK, the workflow bundle and its plan, reports
 * ready, and polls only after {@link go}. So the next generation can load while the current one works,
 * and serve the moment the current one is dead.
 */
/** An activity attempt a generation took for a run it had parked (see {@link Generation.takenWhileParked}). */
export interface TakenWhileParked {
  name: string;
  detail: string;
  activityId: string;
  activityType: string;
  attempt: number;
}

export class Generation {
  readonly points = new Map<string, SeenPoint[]>();
  readonly parked = new Map<string, SeenPoint>();
  /** When the worker parked each run (ms since the epoch): a task that timed out before that, it held alive. */
  readonly parkedAt = new Map<string, number>();
  /** When each workflow's first event arrived (ms since the epoch): how long a resumed run waited. */
  readonly firstEventAt = new Map<string, number>();
  /**
   * Activity attempts this process started for a run it had parked, by workflow: the parked attempt
   * timed out before the kill and its retry came here, where it held. Each spent one of the call's
   * attempts, which a kill at one instant would not have (the audit judges what that changed).
   */
  readonly takenWhileParked = new Map<string, TakenWhileParked[]>();
  /** Activities of this process that outlived their timeout, by workflow (a live timeout: an error of the sweep, unless its row expects it). */
  readonly late = new Map<string, Array<{ activityType: string; detail: string }>>();
  /** When {@link go} was called; 0 before. */
  goAt = 0;
  /** When the process was SIGKILLed; 0 while it lives. */
  killedAt = 0;
  /** The identity the server records for the tasks this process starts (`gen-LABEL@PID`). */
  readonly identity: string;
  private readonly proc: ChildProcess;
  private readonly exited: Promise<unknown>;
  private readonly listeners = new Set<(workflowId: string, event: CrashEvent) => void>();
  private readyResolve!: () => void;
  readonly ready: Promise<void>;
  private log = '';

  constructor(env: GenerationEnv, plan: CrashPlan, label: string) {
    const planFile = path.join(env.dir, `plan-${label}.json`);
    writeFileSync(planFile, JSON.stringify(plan));
    this.ready = new Promise((resolve) => (this.readyResolve = resolve));
    this.proc = spawn(process.execPath, [...(env.worker.execArgv ?? []), env.worker.script], {
      cwd: env.worker.cwd ?? ROOT,
      env: {
        ...process.env,
        ...env.worker.env,
        TEMPORAL_ADDRESS: env.temporalAddress,
        TEMPORAL_NAMESPACE: env.namespace,
        TASK_QUEUE: env.taskQueue,
        CRASH_PLAN: planFile,
        CRASH_STANDBY: '1',
        WORKER_IDENTITY: `gen-${label}`,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    endWithSweep(this.proc);
    this.identity = `gen-${label}@${this.proc.pid}`;
    this.proc.stdin!.on('error', () => {}); // a worker that died early: its exit is reported instead
    this.exited = once(this.proc, 'exit');
    readline.createInterface({ input: this.proc.stdout! }).on('line', (line) => this.onLine(line));
    this.proc.stderr!.on('data', (chunk: Buffer) => {
      this.log = (this.log + chunk.toString()).slice(-20_000);
    });
    this.proc.once('exit', () => this.readyResolve());
  }

  /** Lets the generation poll: from now on it takes tasks. */
  go(): void {
    this.goAt = Date.now();
    this.proc.stdin!.write('go\n');
  }

  /**
   * Lets every parked run go on (the harness killed the Temporal server, not this process), with
   * `targets` as the plan from now on. A resumed run counts its points from 1 again, as in a new
   * generation: its points so far are dropped here, so {@link points} holds those of its recovery.
   */
  resume(targets: CrashPlan['targets']): void {
    for (const workflowId of this.parked.keys()) this.points.delete(workflowId);
    this.parked.clear();
    this.parkedAt.clear();
    this.takenWhileParked.clear();
    this.proc.stdin!.write(`${JSON.stringify({ resume: targets })}\n`);
  }

  /** The process id, for reading its CPU time. */
  get pid(): number {
    return this.proc.pid!;
  }

  /** Calls `fn` for every event of every workflow. */
  onEvent(fn: (workflowId: string, event: CrashEvent) => void): void {
    this.listeners.add(fn);
  }

  /** The last lines the worker wrote to stderr, for error messages. */
  stderrTail(): string {
    return this.log.split('\n').slice(-30).join('\n');
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  private onLine(line: string): void {
    const event = parseEventLine(line);
    if (!event) return;
    if (event.type === 'ready') {
      this.readyResolve();
      return;
    }
    if (event.type === 'late') {
      this.late.set(event.workflowId, [
        ...(this.late.get(event.workflowId) ?? []),
        { activityType: event.activityType, detail: event.detail },
      ]);
      return;
    }
    if (event.type === 'taken-while-parked') {
      this.takenWhileParked.set(event.workflowId, [
        ...(this.takenWhileParked.get(event.workflowId) ?? []),
        {
          name: event.name,
          detail: event.detail,
          activityId: event.activityId,
          activityType: event.activityType,
          attempt: event.attempt,
        },
      ]);
      return;
    }
    if (!this.firstEventAt.has(event.workflowId)) this.firstEventAt.set(event.workflowId, Date.now());
    const seen: SeenPoint = { index: event.index, name: event.name, detail: event.detail };
    if (event.type === 'point') {
      const list = this.points.get(event.workflowId) ?? [];
      list.push(seen);
      this.points.set(event.workflowId, list);
    } else {
      this.parked.set(event.workflowId, seen);
      this.parkedAt.set(event.workflowId, event.at);
    }
    for (const fn of this.listeners) fn(event.workflowId, event);
  }

  /** Ends the process with SIGKILL, as a power cut would, and waits until it is gone. */
  async kill(): Promise<void> {
    if (this.alive) this.proc.kill('SIGKILL');
    this.killedAt ||= Date.now();
    await this.exited;
  }
}
