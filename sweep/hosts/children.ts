// The processes a sweep starts end with it: its worker generations, receivers and Temporal servers.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

const running = new Set<ChildProcess>();
let hooked = false;

/**
 * SIGKILLs `proc` when this process exits while `proc` still runs (a sweep that failed, or an
 * interrupted one: the command line turns SIGINT and SIGTERM into an exit). A sweep that is itself
 * SIGKILLed runs no handler; its worker generations end by themselves then (their stdin closes).
 */
export function endWithSweep(proc: ChildProcess): void {
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const p of running) p.kill('SIGKILL');
    });
  }
  running.add(proc);
  proc.once('exit', () => running.delete(proc));
}

/** SIGKILLs `proc`, if it still runs, and resolves once it is gone. */
export async function killAndWait(proc: ChildProcess | null): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = once(proc, 'exit');
  proc.kill('SIGKILL');
  await exited;
}
