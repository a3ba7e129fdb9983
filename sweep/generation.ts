import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { parseEventLine, type CrashEvent, type CrashPlan } from './crash-control';

const ROOT = path.resolve(__dirname, '..');

/** Where a worker generation finds everything. */
export interface GenerationEnv {
  temporalAddress: string;
  taskQueue: string;
  trackerUrl: string;
  openaiBaseUrl: string;
  workflowBundle: string;
  /** The workers' `MCP_CONFIG` file. */
  mcpConfig: string;
  /** A folder for plan files and worker logs. */
  dir: string;
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
 */
export class Generation {
  readonly points = new Map<string, SeenPoint[]>();
  readonly parked = new Map<string, SeenPoint>();
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
    this.proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'sweep', 'worker-process.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: env.temporalAddress,
        TASK_QUEUE: env.taskQueue,
        TRACKER_URL: env.trackerUrl,
        OPENAI_BASE_URL: env.openaiBaseUrl,
        WORKFLOW_BUNDLE: env.workflowBundle,
        MCP_CONFIG: env.mcpConfig,
        CRASH_PLAN: planFile,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exited = once(this.proc, 'exit');
    readline.createInterface({ input: this.proc.stdout! }).on('line', (line) => this.onLine(line));
    this.proc.stderr!.on('data', (chunk: Buffer) => {
      this.log = (this.log + chunk.toString()).slice(-20_000);
    });
    this.proc.once('exit', () => this.readyResolve());
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
    const seen: SeenPoint = { index: event.index, name: event.name, detail: event.detail };
    if (event.type === 'point') {
      const list = this.points.get(event.workflowId) ?? [];
      list.push(seen);
      this.points.set(event.workflowId, list);
    } else {
      this.parked.set(event.workflowId, seen);
    }
    for (const fn of this.listeners) fn(event.workflowId, event);
  }

  /** Ends the process with SIGKILL, as a power cut would, and waits until it is gone. */
  async kill(): Promise<void> {
    if (this.alive) this.proc.kill('SIGKILL');
    await this.exited;
  }
}
