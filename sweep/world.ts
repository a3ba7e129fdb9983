import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { buildModelServer } from '../model/app';
import { buildTracker } from '../tracker/app';
import { Store } from '../tracker/store';
import { WORKFLOW_INTERCEPTORS, WORKFLOWS_PATH } from '../workers/create-worker';
import { MCP_SERVER_NAMES, McpHost } from './mcp-host';

/** A tracker of the sweep's world. */
export interface WorldTracker {
  url: string;
  store: Store;
}

/**
 * Everything that outlives the sweep's kills: a Temporal dev server, a keyed and a keyless tracker
 * on SQLite, and the scripted model server. Workers die, and so do the MCP servers in front of each
 * tracker, which the harness starts again.
 */
export interface World {
  env: TestWorkflowEnvironment;
  trackers: { keyed: WorldTracker; keyless: WorldTracker };
  /** The MCP server in front of each tracker, named as {@link MCP_SERVER_NAMES} says; started by `startMcp`. */
  mcp: { keyed: McpHost; keyless: McpHost };
  /** The workers' `MCP_CONFIG` file: no servers until `startMcp`. */
  mcpConfig: string;
  /** Starts the MCP servers, once; later calls return at once. */
  startMcp(): Promise<void>;
  modelUrl: string;
  workflowBundle: string;
  dir: string;
  /** Model calls the model server served to a run. */
  modelCalls(runId: string): Promise<number>;
  close(): Promise<void>;
}

/** Starts `temporal-host.ts`, which runs the dev server with its banner kept off our stdout. */
async function startTemporalHost(): Promise<{ address: string; stop(): Promise<void> }> {
  const child = fork(path.join(__dirname, 'temporal-host.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = once(child, 'exit');
  const [message] = (await Promise.race([
    once(child, 'message'),
    exited.then(() => {
      throw new Error('the Temporal dev server did not start (see the lines above)');
    }),
  ])) as [{ address: string }];
  return {
    address: message.address,
    async stop() {
      child.send('stop');
      await exited;
    },
  };
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** Starts the world in a fresh temporary folder; `close` removes it. */
export async function startWorld(): Promise<World> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sweep-'));
  const host = await startTemporalHost();
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address: host.address });
  const apps: FastifyInstance[] = [];
  const stores: Store[] = [];
  const tracker = async (keyless: boolean): Promise<WorldTracker> => {
    // `normal` sync: commits survive a crash of any process, which is all the sweep does; not power loss.
    const store = new Store(path.join(dir, `tracker-${keyless ? 'keyless' : 'keyed'}.db`), 'normal');
    const app = buildTracker({ store, keyless });
    apps.push(app);
    stores.push(store);
    return { url: await listen(app), store };
  };
  const trackers = { keyed: await tracker(false), keyless: await tracker(true) };
  const mcp = {
    keyed: new McpHost(MCP_SERVER_NAMES.keyed, trackers.keyed.url, dir),
    keyless: new McpHost(MCP_SERVER_NAMES.keyless, trackers.keyless.url, dir),
  };
  const mcpConfig = path.join(dir, 'mcp.json');
  writeFileSync(mcpConfig, JSON.stringify({ mcpServers: {} }));
  let mcpStarted: Promise<void> | null = null;
  // Only sweeps with MCP variants pay for the servers' processes.
  const startMcp = () =>
    (mcpStarted ??= (async () => {
      await Promise.all([mcp.keyed.start(), mcp.keyless.start()]);
      const servers = { [mcp.keyed.name]: { url: mcp.keyed.url }, [mcp.keyless.name]: { url: mcp.keyless.url } };
      writeFileSync(mcpConfig, JSON.stringify({ mcpServers: servers }));
    })());
  const model = buildModelServer();
  apps.push(model);
  const modelUrl = await listen(model);
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTORS,
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
  });
  const workflowBundle = path.join(dir, 'workflow-bundle.js');
  writeFileSync(workflowBundle, code);

  return {
    env,
    trackers,
    mcp,
    mcpConfig,
    startMcp,
    modelUrl,
    workflowBundle,
    dir,
    async modelCalls(runId) {
      const res = await model.inject({ method: 'GET', url: `/calls?run=${encodeURIComponent(runId)}` });
      return (res.json() as { calls: number }).calls;
    },
    async close() {
      await mcpStarted?.catch(() => {});
      await Promise.all([mcp.keyed.close(), mcp.keyless.close()]);
      for (const app of apps) await app.close();
      for (const store of stores) store.close();
      await env.teardown();
      await host.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
