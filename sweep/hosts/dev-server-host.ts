// The parent side of the sweep's own dev server: starts dev-server-main.ts and gets its address over IPC.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { entryFile, tsxFlags } from '../../common/tsx';
import type { AnySearchAttributeKey } from '../../common/search-attribute-flags';
import { childPids } from '../engine/timings';

/** The Temporal server of a sweep: its own dev server, or an existing one. */
export interface TemporalHost {
  address: string;
  /** The Web UI's address, if the dev server serves one. */
  ui: string | null;
  pid: number | null;
  stop(): Promise<void>;
}

/**
 * Starts `dev-server-main.ts`, which runs the dev server with its banner kept off our stdout, these
 * search attributes registered, and its timers close to their time if asked.
 */
export async function startTemporalHost(
  ui: boolean,
  searchAttributes: readonly AnySearchAttributeKey[],
  preciseTimers = false,
): Promise<TemporalHost> {
  const child = fork(entryFile(path.join(__dirname, 'dev-server-main.ts')), ui ? ['--ui'] : [], {
    execArgv: tsxFlags(),
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: {
      ...process.env,
      CRASH_SWEEP_SEARCH_ATTRIBUTES: JSON.stringify(searchAttributes),
      CRASH_SWEEP_PRECISE_TIMERS: preciseTimers ? '1' : '0',
    },
  });
  const exited = once(child, 'exit');
  const [message] = (await Promise.race([
    once(child, 'message'),
    exited.then(() => {
      throw new Error('the Temporal dev server did not start (see the lines above)');
    }),
  ])) as [{ address: string; uiPort?: number }];
  return {
    address: message.address,
    ui: message.uiPort ? `http://127.0.0.1:${message.uiPort}` : null,
    // The dev server is the host's child (the `temporal` binary), for reading its CPU time.
    pid: childPids(child.pid!)[0] ?? null,
    async stop() {
      child.send('stop');
      await exited;
    },
  };
}
