// The Temporal server dies at each kill, and comes back on its database file.
import type { Fault } from './fault';

/** Whether the worker dies with the Temporal server, or lives on and resumes its parked runs. */
export type ServerDeath = 'worker-survives' | 'worker-dies';

/**
 * The Temporal server dies at each point: the row's runs live on a dev server of their own, on a
 * database file, which the engine SIGKILLs and starts again on the same file and port
 * (`hosts/killable-server-host.ts`). `worker-survives`: the worker is not killed, and its parked runs
 * go on once the server is back (their timeouts must outlast a batch's parking: nothing may time out
 * in a live worker). `worker-dies`: the worker is killed too, while the server is down, and a fresh
 * one finishes the run.
 */
export function serverDies(worker: ServerDeath): Fault {
  return {
    name: `server-dies:${worker}`,
    kind: 'server-dies',
    target: 'temporal-server',
    summary:
      worker === 'worker-survives'
        ? 'the Temporal server is SIGKILLed at the point and restarted on its file; the worker lives on'
        : 'the Temporal server is SIGKILLed at the point and restarted on its file; the worker dies while it is down',
    serverDies: worker,
  };
}
