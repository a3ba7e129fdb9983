// The parent side of the sweep's own dev server: starts dev-server-main.ts and gets its address over IPC.
import { fork } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { entryFile, tsxFlags } from '../../common/tsx';
import type { AnySearchAttributeKey } from '../../common/search-attribute-flags';

/** The Temporal server of a sweep: its own dev server, or an existing one. */
export interface TemporalHost {
  address: string;
  /** The Web UI's address, if the dev server serves one. */
  ui: string | null;
  /** The process that hosts the dev server (the server runs under it), for the CPU of both (`treeCpuSeconds`); `null` for a server the sweep did not start. */
  pid: number | null;
  stop(): Promise<void>;
}

/**
 * Starts `dev-server-main.ts`, which runs the dev server with its banner kept off our stdout, these
 * search attributes registered, and its timers close to their time if asked. Its own log (errors
 * only) goes to `logFile` if given, else to our stderr.
 */
export async function startTemporalHost(
  ui: boolean,
  searchAttributes: readonly AnySearchAttributeKey[],
  preciseTimers = false,
  logFile?: string,
): Promise<TemporalHost> {
  const log = logFile ? openSync(logFile, 'a') : 'inherit';
  const child = fork(entryFile(path.join(__dirname, 'dev-server-main.ts')), ui ? ['--ui'] : [], {
    execArgv: tsxFlags(),
    stdio: ['ignore', 'ignore', log, 'ipc'],
    env: {
      ...process.env,
      CRASH_SWEEP_SEARCH_ATTRIBUTES: JSON.stringify(searchAttributes),
      CRASH_SWEEP_PRECISE_TIMERS: preciseTimers ? '1' : '0',
    },
  });
  if (typeof log === 'number') closeSync(log); // the child holds its own copy
  const exited = once(child, 'exit');
  const [message] = (await Promise.race([
    once(child, 'message'),
    exited.then(() => {
      const said = logFile ? `:\n${readFileSync(logFile, 'utf8').trimEnd()}` : ' (see the lines above)';
      throw new Error(`the Temporal dev server did not start${said}`);
    }),
  ])) as [{ address: string; uiPort?: number }];
  return {
    address: message.address,
    ui: message.uiPort ? `http://127.0.0.1:${message.uiPort}` : null,
    // The host, under which the dev server (the `temporal` binary) runs: its CPU is read with everything under it.
    pid: child.pid ?? null,
    async stop() {
      child.send('stop');
      await exited;
    },
  };
}

/**
 * What a dev server's log file holds, for a sweep's summary: its lines are the server's own (an
 * operation it cancelled as a worker died, say), not the sweep's findings. `null`, and the file and its
 * folder removed, when it holds nothing.
 */
export function describeServerLog(file: string): string | null {
  const text = existsSync(file) ? readFileSync(file, 'utf8').trimEnd() : '';
  if (text === '') {
    rmSync(path.dirname(file), { recursive: true, force: true });
    return null;
  }
  return `the Temporal dev server's own log (${text.split('\n').length} line(s), its errors, not the sweep's findings): ${file}`;
}
