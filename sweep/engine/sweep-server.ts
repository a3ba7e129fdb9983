import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { tsxFlags } from '../../common/tsx';
import { childPids } from './timings';
import type { AnySearchAttributeKey } from '../../common/search-attribute-flags';

/** The Temporal server of a sweep: its own dev server, or an existing one. */
export interface TemporalHost {
  address: string;
  /** The Web UI's address, if the dev server serves one. */
  ui: string | null;
  pid: number | null;
  stop(): Promise<void>;
}

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
}

/** Starts `dev-server-main.ts`, which runs the dev server with its banner kept off our stdout. */
async function startTemporalHost(ui: boolean, searchAttributes: readonly AnySearchAttributeKey[]): Promise<TemporalHost> {
  const child = fork(path.join(__dirname, 'dev-server-main.ts'), ui ? ['--ui'] : [], {
    execArgv: tsxFlags(),
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, CRASH_SWEEP_SEARCH_ATTRIBUTES: JSON.stringify(searchAttributes) },
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

/** Starts (or connects to) the sweep's Temporal server, with a fresh temporary folder. */
export async function startServer(options: ServerOptions = {}): Promise<SweepServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sweep-'));
  const temporal: TemporalHost = options.address
    ? { address: options.address, ui: null, pid: null, stop: async () => {} }
    : await startTemporalHost(options.ui ?? false, options.searchAttributes ?? []);
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address: temporal.address, namespace: options.namespace ?? 'default' });
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
