import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { parseEventLine } from './crash-control';
import type { McpCrashPlan } from './mcp-process';

const ROOT = path.resolve(__dirname, '..');

/** The names of the sweep's two MCP servers, one per tracker, in the workers' MCP configuration. */
export const MCP_SERVER_NAMES = { keyed: 'tracker-keyed', keyless: 'tracker-keyless' } as const;

/**
 * The sweep's MCP server for one tracker: `sweep/mcp-process.ts` over Streamable HTTP, which parks
 * every write the first time the tracker accepts it. The harness SIGKILLs it when it chooses and
 * starts the next one on the same port, so workers keep the same URL. The next one is launched ahead,
 * loaded and waiting, so a restart takes milliseconds, not the second a fresh Node process needs.
 */
export class McpHost {
  /** Requests parked in the serving process, by key, with their detail (`tool key`). */
  readonly parked = new Map<string, string>();
  private serving: ChildProcess | null = null;
  private standby: { proc: ChildProcess; listening: Promise<string> } | null = null;
  private port = 0;
  private log = '';
  url = '';

  constructor(
    readonly name: string,
    private readonly trackerUrl: string,
    private readonly dir: string,
  ) {
    const plan: McpCrashPlan = { action: 'park', stateFile: path.join(dir, `mcp-faulted-${name}.txt`) };
    // Written now, read by each process when it starts serving.
    writeFileSync(this.planFile, JSON.stringify(plan));
  }

  private get planFile(): string {
    return path.join(this.dir, `mcp-plan-${this.name}.json`);
  }

  /** Starts serving (on a free port the first time, the same port after) and waits until it listens. */
  async start(): Promise<void> {
    const next = this.standby ?? this.launch();
    this.standby = null;
    this.parked.clear();
    this.serving = next.proc;
    next.proc.stdin!.end('go\n');
    this.url = await next.listening;
    this.port = Number(new URL(this.url).port);
    this.standby = this.launch();
  }

  /** SIGKILLs the serving process, failing its parked requests mid-call, and waits until it is gone. */
  async kill(): Promise<void> {
    await stop(this.serving);
  }

  /** Kills the serving process and lets the standby serve. */
  async restart(): Promise<void> {
    await this.kill();
    await this.start();
  }

  /** Stops both processes. */
  async close(): Promise<void> {
    await Promise.all([stop(this.serving), stop(this.standby?.proc ?? null)]);
    this.standby = null;
  }

  private launch(): { proc: ChildProcess; listening: Promise<string> } {
    const proc = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'sweep', 'mcp-process.ts'), '--port', String(this.port), '--tracker', this.trackerUrl],
      { cwd: ROOT, env: { ...process.env, MCP_CRASH_PLAN: this.planFile, MCP_STANDBY: '1' }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    readline.createInterface({ input: proc.stderr! }).on('line', (line) => {
      const event = parseEventLine(line);
      if (event?.type === 'parked') {
        const [, key] = event.detail.split(' ');
        this.parked.set(key, event.detail);
      } else if (!event) {
        this.log = `${this.log}${line}\n`.slice(-10_000);
      }
    });
    const listening = new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: proc.stdout! }).on('line', (line) => {
        const m = line.match(/listening on (http:\/\/\S+\/mcp)/);
        if (m) resolve(m[1]);
      });
      proc.once('exit', () => reject(new Error(`the MCP server ${this.name} exited before it listened:\n${this.log}`)));
    });
    listening.catch(() => {}); // a standby killed at close never listens
    return { proc, listening };
  }
}

async function stop(proc: ChildProcess | null): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = once(proc, 'exit');
  proc.kill('SIGKILL');
  await exited;
}
