// The Temporal server of a sweep (its own dev server, or an existing one), a client, and a scratch folder.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { AnySearchAttributeKey } from '../../common/search-attribute-flags';
import { startTemporalHost, type TemporalHost } from './dev-server-host';

export type { TemporalHost } from './dev-server-host';

/** What every sweep has, whatever it sweeps: a Temporal server, a client, and a scratch folder. */
export interface SweepServer {
  env: TestWorkflowEnvironment;
  temporal: TemporalHost;
  /** A fresh temporary folder (plan files, logs, bundles); removed by {@link SweepServer.close}. */
  dir: string;
  /** Whether the server is one the sweep did not start (`--address`). */
  existing: boolean;
  /** Stops everything, unless `keepTemporal`: then the Temporal server stays up (the caller stops it). */
  close(keepTemporal?: boolean): Promise<void>;
}

/** Options of {@link startServer}. */
export interface ServerOptions {
  /** An existing Temporal server (`HOST:PORT`) instead of a dev server of the sweep's own. */
  address?: string;
  /** Its namespace. Default `default`. */
  namespace?: string;
  /** Serve the dev server's Web UI (to keep the server for a look after the sweep). Default `false`. */
  ui?: boolean;
  /** Search attributes to register on the dev server when it starts (not on an existing server). Default none. */
  searchAttributes?: readonly AnySearchAttributeKey[];
  /** Timers close to their time on the dev server (`PRECISE_TIMER_FLAGS`; not on an existing server). Default `false`. */
  preciseTimers?: boolean;
  /** Where the dev server's own log goes (errors only). Default: the sweep's stderr. */
  serverLog?: string;
}

/** Starts (or connects to) the sweep's Temporal server, with a fresh temporary folder. */
export async function startServer(options: ServerOptions = {}): Promise<SweepServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sweep-'));
  const temporal: TemporalHost = options.address
    ? { address: options.address, ui: null, pid: null, stop: async () => {} }
    : await startTemporalHost(
        options.ui ?? false,
        options.searchAttributes ?? [],
        options.preciseTimers ?? false,
        options.serverLog,
      );
  const env = await TestWorkflowEnvironment.createFromExistingServer({
    address: temporal.address,
    namespace: options.namespace ?? 'default',
  });
  return {
    env,
    temporal,
    dir,
    existing: options.address !== undefined,
    async close(keepTemporal = false) {
      await env.teardown();
      if (!keepTemporal) await temporal.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
