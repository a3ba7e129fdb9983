// Child processes for tests: an entry point through tsx, waited for by its output, killed with SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');

/** The file `npm run <script>` runs with tsx (`start` is `examples/triage/start.ts`), as package.json says. */
export function scriptFile(script: string): string {
  const scripts = (
    JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  const match = /^tsx (\S+\.ts)$/.exec(scripts[script] ?? '');
  if (!match) throw new Error(`npm run ${script} is not a tsx script in package.json`);
  return match[1];
}

/** A child process running one of the project's entry points through tsx. */
export interface Child {
  proc: ChildProcess;
  /** Everything it printed so far, stdout and stderr together. */
  output(): string;
  /** Resolves with the first output line that matches, rejects if the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGKILLs the process and waits until it is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `node --import tsx ENTRY ARGS` in the project root. One process, not tsx's CLI wrapper,
 * which would leave its child running when SIGKILLed.
 */
export function startChild(entry: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString();
    for (const l of listeners) l();
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const exited = once(proc, 'exit');

  return {
    proc,
    output: () => text,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = text.match(pattern);
          if (m) {
            done();
            resolve(m);
          }
        };
        const onExit = () => {
          done();
          reject(new Error(`${entry} exited before printing ${pattern}:\n${text}`));
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${entry} did not print ${pattern} within ${timeoutMs} ms:\n${text}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
          proc.off('exit', onExit);
        };
        listeners.add(check);
        proc.once('exit', onExit);
        check();
      });
    },
    async kill(signal = 'SIGKILL') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
  };
}

/** A port nothing listens on now, below the ephemeral range (common/free-port.ts). */
export { freePort } from '../../common/free-port';
