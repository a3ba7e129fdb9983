// A receiver a suite declares, as a process the engine starts, SIGKILLs and starts again on its port.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { canConnect, freePort } from '../../common/free-port';
import { tsxFlags } from '../../common/tsx';
import { endWithSweep, killAndWait } from './children';

/** How a declared receiver's process starts: a Node script (TypeScript through tsx) that listens on `PORT`. */
export interface ReceiverScript {
  /** Its name, for errors. */
  name: string;
  /** The script: it listens on 127.0.0.1 at `PORT`, and keeps what must outlive it under `DATA_DIR`. */
  script: string;
  /** More variables for it. */
  env?: Record<string, string>;
  cwd: string;
  /** Its own directory, the same at every restart (`DATA_DIR`). */
  dataDir: string;
}

/** How long a receiver may take to listen after it starts. */
const LISTEN_WITHIN_MS = 30_000;

/**
 * A declared receiver's process: started on a port below the ephemeral range (so nothing takes it
 * while the process is down), SIGKILLed when the engine says, and started again on the same port and
 * data directory. It is ready when its port takes a connection: a user's script needs no protocol of
 * ours.
 */
export class ReceiverProcess {
  private proc: ChildProcess | null = null;
  private port = 0;
  private log = '';

  constructor(private readonly spec: ReceiverScript) {}

  /** Where it listens (known once started). */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts it (on a free port the first time, the same port after) and waits until it listens. */
  async start(): Promise<void> {
    if (this.port === 0) this.port = await freePort();
    mkdirSync(this.spec.dataDir, { recursive: true });
    const proc = spawn(process.execPath, [...tsxFlags(), this.spec.script], {
      cwd: this.spec.cwd,
      env: { ...process.env, ...this.spec.env, PORT: String(this.port), DATA_DIR: this.spec.dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    endWithSweep(proc);
    this.proc = proc;
    const keep = (chunk: Buffer) => (this.log = `${this.log}${String(chunk)}`.slice(-10_000));
    proc.stdout!.on('data', keep);
    proc.stderr!.on('data', keep);
    await this.listening(proc);
  }

  /** SIGKILLs it and waits until it is gone. */
  async kill(): Promise<void> {
    await killAndWait(this.proc);
  }

  /** Waits until its port takes a connection; fails if the process exits first, or takes too long. */
  private async listening(proc: ChildProcess): Promise<void> {
    const until = Date.now() + LISTEN_WITHIN_MS;
    for (;;) {
      if (proc.exitCode !== null || proc.signalCode !== null)
        throw new Error(`the receiver ${this.spec.name} exited before it listened on PORT ${this.port}:\n${this.log}`);
      if (await canConnect(this.port)) return;
      if (Date.now() > until)
        throw new Error(`the receiver ${this.spec.name} did not listen on PORT ${this.port} within 30 s:\n${this.log}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
