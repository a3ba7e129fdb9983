// The child process that hosts the sweep's Temporal dev server (its parent side is dev-server-host.ts), with its banner kept off the sweep's stdout.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { devServerExecutable } from '../../common/temporal-cli';
import { sweepDevServerFlags } from './killable-server-host';
import type { AnySearchAttributeKey } from '../../common/search-attribute-flags';

/**
 * Hosts the sweep's Temporal dev server in a process of its own (started by `TestWorkflowEnvironment.createLocal`,
 * with the local `temporal` CLI when there is one). The dev server prints a banner with random ports
 * to the stdout it inherits; the search attributes to register come as JSON in `CRASH_SWEEP_SEARCH_ATTRIBUTES`,
 * and `CRASH_SWEEP_PRECISE_TIMERS=1` asks for timers close to their time; here that stdout is discarded, so the sweep's own stdout holds only its
 * table and two sweeps print the same bytes. The address goes to the parent over IPC; the server is
 * torn down when the parent says so or goes away.
 */
async function main(): Promise<void> {
  const ui = process.argv.includes('--ui');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ...(ui ? { ui: true } : {}), // the UI listens on the server's port + 1000
      executable: devServerExecutable(),
      log: { format: 'pretty', level: 'error' },
      searchAttributes: JSON.parse(process.env.CRASH_SWEEP_SEARCH_ATTRIBUTES ?? '[]') as AnySearchAttributeKey[],
      extraArgs: sweepDevServerFlags(process.env.CRASH_SWEEP_PRECISE_TIMERS === '1'),
    },
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await env.teardown();
    process.exit(0);
  };
  process.on('message', (m) => m === 'stop' && void stop());
  process.on('disconnect', () => void stop());
  const uiPort = ui ? Number(env.address.split(':').pop()) + 1000 : undefined;
  process.send!({ address: env.address, uiPort });
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
