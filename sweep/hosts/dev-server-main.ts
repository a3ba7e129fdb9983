// The child process that hosts the sweep's Temporal dev server (its parent side is dev-server-host.ts), with its banner kept off the sweep's stdout.
import { spawnDevServer, waitForDevServer } from '../../common/dev-server';
import { canConnect, freePort } from '../../common/free-port';
import { connectTemporal } from '../../common/temporal-connection';
import { sweepDevServerFlags } from './killable-server-host';
import { killAndWait } from './children';
import type { AnySearchAttributeKey } from '../../common/search-attribute-flags';

/**
 * Hosts the sweep's Temporal dev server in a process of its own (`common/dev-server.ts`, the local
 * `temporal` CLI, in memory, on a free port). The server's banner goes nowhere and its errors to this
 * process's stderr (the sweep's log file); the search attributes to register come as JSON in
 * `CRASH_SWEEP_SEARCH_ATTRIBUTES`, and `CRASH_SWEEP_PRECISE_TIMERS=1` asks for timers close to their
 * time; so the sweep's own stdout holds only its table and two sweeps print the same bytes. The
 * address goes to the parent over IPC once the server answers for its namespace; the server is
 * killed when the parent says so or goes away.
 */
async function main(): Promise<void> {
  const port = await freePort();
  const uiPort = process.argv.includes('--ui') ? await freePort() : undefined;
  const server = spawnDevServer(
    {
      port,
      ...(uiPort ? { uiPort } : {}),
      searchAttributes: JSON.parse(process.env.CRASH_SWEEP_SEARCH_ATTRIBUTES ?? '[]') as AnySearchAttributeKey[],
      flags: sweepDevServerFlags(process.env.CRASH_SWEEP_PRECISE_TIMERS === '1'),
    },
    'inherit',
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await killAndWait(server);
    process.exit(0);
  };
  process.on('message', (m) => m === 'stop' && void stop());
  process.on('disconnect', () => void stop());
  const address = `127.0.0.1:${port}`;
  await waitForDevServer(server, 'listen', () => canConnect(port));
  const connection = await connectTemporal(address);
  await waitForDevServer(server, 'serve', () =>
    connection
      .withDeadline(Date.now() + 1_000, () => connection.workflowService.describeNamespace({ namespace: 'default' }))
      .then(
        () => true,
        () => false,
      ),
  );
  await connection.close();
  process.send!({ address, uiPort });
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
