// The sweep's world for the agent: trackers, the scripted model, MCP servers, the workflow bundle and the compiled worker.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { build } from 'esbuild';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { buildModelServer } from '../model/app';
import type { FickleIds } from '../model/script';
import { buildTracker, type TrackerOptions } from '../tracker/app';
import { SlowCommits } from '../sweep/faults';
import { Store } from '../tracker/store';
import { workflowSources } from '../workers/create-worker';
import { AGENT_SEARCH_ATTRIBUTES } from '../common/search-attributes';
import { ensureSearchAttributes } from '../workers/search-attributes';
import { MCP_SERVER_NAMES, McpHost } from './mcp-host';
import type { TrackerCrashPlan } from './tracker-main';
import { TrackerHost } from './tracker-host';
import { PartitionProxy } from '../sweep/hosts/partition-proxy';
import type { Lost } from '../sweep/faults';
import { startServer, type ServerOptions, type SweepServer, type TemporalHost } from '../sweep/hosts/sweep-server';
import { PARTITION, SLOW_RECEIVER } from './timeouts';

/** The workflows module of the sweep's agent worker: the loop and the designs (`workflows.ts`). Resolved when asked. */
export const sweepWorkflowsPath = (): string => require.resolve('./workflows');

const ROOT = path.resolve(__dirname, '..');

/** A tracker of the sweep's world. */
export interface WorldTracker {
  url: string;
  store: Store;
  /**
   * A slow tracker's, or a partition's: whether the hold of `repo`'s first write ended at its cap, with
   * no request of the run to end it.
   */
  holdRanOut?(repo: string): boolean;
  /** A partition's: tells `onHeld` once `repo`'s write starts to hang behind it (an operator watching for stuck calls). */
  watchHeld?(repo: string, onHeld: () => void): void;
}

/**
 * The world's trackers: one that honours keys and one that ignores them, and four slow ones that hold
 * a run's first write past the tool's timeout before it commits (see {@link SLOW_RECEIVER}): keyed with
 * its keys claimed while in flight, keyed without claims (the race), keyless stating its commit
 * deadline, and keyless stating none.
 */
export type TrackerName =
  'keyed' | 'keyless' | 'slowKeyed' | 'slowKeyedUnclaimed' | 'slowKeyless' | 'slowKeylessSilent';

/** A tracker running as its own process, which the harness SIGKILLs at one of its points and restarts on the same file and port. */
export interface TrackerProcess extends WorldTracker {
  host: TrackerHost;
}

/** Where a tracker process holds each write the first time, for the harness to kill it there. */
export type TrackerPoint = TrackerCrashPlan['point'];

/** The MCP servers of one lane and the configuration file that names them. */
export interface McpLane {
  hosts: { keyed: McpHost; keyless: McpHost };
  config: string;
}

/**
 * Everything that outlives the sweep's kills: a Temporal dev server, a keyed and a keyless tracker
 * on SQLite, and the scripted model server. Workers die, and so do the MCP servers in front of each
 * tracker, which the harness starts again.
 */
export interface World {
  /** The Temporal server, client and scratch folder the world is built on. */
  server: SweepServer;
  env: TestWorkflowEnvironment;
  trackers: Record<TrackerName, WorldTracker>;
  /**
   * The MCP servers of one lane of the sweep (lanes run batches side by side): a server in front of
   * each tracker, named as {@link MCP_SERVER_NAMES} says, and the workers' `MCP_CONFIG` file naming
   * them. Started on first use, one pair per lane, so a kill in one lane never cuts another lane's call.
   */
  mcpLane(lane: number): Promise<McpLane>;
  /**
   * A tracker as a process of its own (keyed or keyless), holding each write the first time it reaches
   * `point`: one per lane, kind and point, started on first use, so a kill in one lane never cuts
   * another lane's request. Its store, opened by the harness on the same file, counts the effects.
   */
  trackerProcess(lane: number, kind: 'keyed' | 'keyless', point: TrackerPoint): Promise<TrackerProcess>;
  /**
   * The keyed or the keyless tracker behind a network partition that loses each run's first write, or
   * its reply (`hosts/partition-proxy.ts`): its URL is the proxy's, its store the tracker's. Started on
   * first use; the proxy tells runs apart by their repository, so one serves every lane, and tells a
   * run's watcher (`watchHeld`) when that run's write starts to hang.
   */
  partitioned(kind: 'keyed' | 'keyless', lost: Lost): Promise<WorldTracker>;
  /** An `MCP_CONFIG` file with no servers, for lanes that use none. */
  noMcpConfig: string;
  modelUrl: string;
  /**
   * Runs whose model changes its mind when asked a conversation again, and how it names its calls
   * then (set a run id's before it starts).
   */
  fickleRuns: Map<string, FickleIds>;
  /** The crash worker as one plain JavaScript file, loaded by every generation without compiling TypeScript. */
  workerScript: string;
  /** The Temporal dev server's process id, where it can be found (Linux), for the benchmark's CPU figures. */
  serverPid: number | null;
  workflowBundle: string;
  dir: string;
  /** The Temporal server the world uses. */
  temporal: TemporalHost;
  /** Model calls the model server served to a run. */
  modelCalls(runId: string): Promise<number>;
  /** Stops everything, unless `keepTemporal`: then the Temporal server stays up (the caller stops it). */
  close(keepTemporal?: boolean): Promise<void>;
}

/** Options of {@link startWorld}. */
export interface WorldOptions extends ServerOptions {
  /** A sweep server to build on (the sweep's); the world then leaves it running when it closes. Default: a server of its own. */
  server?: SweepServer;
}

/** The world's slow trackers. */
export type SlowTrackerName = Exclude<TrackerName, 'keyed' | 'keyless'>;

/**
 * A slow tracker's settings: its hold (see {@link SLOW_RECEIVER}) and what it does with keys and its
 * commit deadline. Only the tracker of the "waits out the deadline" row has a deadline a held write
 * can reach; it states it.
 */
export function slowTrackerSettings(name: SlowTrackerName): {
  hold: SlowCommits;
  settings: Omit<TrackerOptions, 'store'>;
} {
  const { holdCapMs, statedDeadlineMs, unreachedDeadlineMs } = SLOW_RECEIVER;
  const own: Record<SlowTrackerName, Omit<TrackerOptions, 'store'>> = {
    slowKeyed: { stateCommitDeadline: true, commitDeadlineMs: unreachedDeadlineMs },
    slowKeyedUnclaimed: { stateCommitDeadline: true, commitDeadlineMs: unreachedDeadlineMs, claimKeys: false },
    slowKeyless: { stateCommitDeadline: true, commitDeadlineMs: statedDeadlineMs, keyless: true },
    slowKeylessSilent: { commitDeadlineMs: unreachedDeadlineMs, keyless: true },
  };
  const hold = new SlowCommits(holdCapMs);
  return { hold, settings: { ...own[name], slow: hold } };
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/**
 * Compiles the crash worker (`worker-main.ts` and our modules it imports; packages stay external)
 * into one JavaScript file. A generation then starts in about half the CPU time it takes through tsx,
 * which compiles every TypeScript file again in each new process. The file sits in `.sweep/` (no part of
 * the package), one level below the root like the sources, so their relative `require.resolve` calls
 * and package imports resolve as they do from the sources.
 */
async function buildWorkerScript(): Promise<string> {
  const outfile = path.join(ROOT, '.sweep', `worker-${process.pid}-${Date.now()}.js`);
  await build({
    entryPoints: [path.join(ROOT, 'agent-sweep', 'worker-main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  return outfile;
}

/** Starts the world in a fresh temporary folder; `close` removes it. */
export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const server = options.server ?? (await startServer({ ...options, searchAttributes: AGENT_SEARCH_ATTRIBUTES }));
  const { env, dir, temporal: host } = server;
  // The sweep's own dev server registers the agent's search attributes when it starts; another server may lack them.
  if (server.existing) await ensureSearchAttributes(env.connection.operatorService, env.client.options.namespace);
  const apps: FastifyInstance[] = [];
  const stores: Store[] = [];
  const tracker = async (name: TrackerName, settings: Omit<TrackerOptions, 'store'> = {}): Promise<WorldTracker> => {
    // `normal` sync: commits survive a crash of any process, which is all the sweep does; not power loss.
    const store = new Store(path.join(dir, `tracker-${name}.db`), 'normal');
    const app = buildTracker({ store, ...settings });
    apps.push(app);
    stores.push(store);
    return { url: await listen(app), store };
  };
  const slowTracker = async (name: SlowTrackerName) => {
    const { hold, settings } = slowTrackerSettings(name);
    return { ...(await tracker(name, settings)), holdRanOut: (repo: string) => hold.ranOut(repo) };
  };
  const trackers: Record<TrackerName, WorldTracker> = {
    keyed: await tracker('keyed'),
    keyless: await tracker('keyless', { keyless: true }),
    slowKeyed: await slowTracker('slowKeyed'),
    slowKeyedUnclaimed: await slowTracker('slowKeyedUnclaimed'),
    slowKeyless: await slowTracker('slowKeyless'),
    slowKeylessSilent: await slowTracker('slowKeylessSilent'),
  };
  const noMcpConfig = path.join(dir, 'mcp-none.json');
  writeFileSync(noMcpConfig, JSON.stringify({ mcpServers: {} }));
  // Only sweeps with MCP variants pay for the servers' processes.
  const lanes = new OnFirstUse<McpLane>();
  const mcpLane = (lane: number): Promise<McpLane> =>
    lanes.get(`lane-${lane}`, async (name) => {
      const laneDir = path.join(dir, name);
      mkdirSync(laneDir, { recursive: true });
      const hosts = {
        keyed: new McpHost(MCP_SERVER_NAMES.keyed, trackers.keyed.url, laneDir),
        keyless: new McpHost(MCP_SERVER_NAMES.keyless, trackers.keyless.url, laneDir),
      };
      await Promise.all([hosts.keyed.start(), hosts.keyless.start()]);
      const config = path.join(laneDir, 'mcp.json');
      const servers = {
        [hosts.keyed.serverName]: { url: hosts.keyed.url },
        [hosts.keyless.serverName]: { url: hosts.keyless.url },
      };
      writeFileSync(config, JSON.stringify({ mcpServers: servers }));
      return { hosts, config };
    });
  const processes = new OnFirstUse<TrackerProcess>();
  const trackerProcess = (lane: number, kind: 'keyed' | 'keyless', point: TrackerPoint): Promise<TrackerProcess> =>
    processes.get(`tracker-${kind}-${point}-lane-${lane}`, async (name) => {
      const host = new TrackerHost(name, dir, { point, keyless: kind === 'keyless' });
      await host.start();
      // Opened once the process has made the file; WAL lets both read and write it.
      const store = new Store(host.db, 'normal');
      stores.push(store);
      return { url: host.url, store, host };
    });
  const proxies = new OnFirstUse<PartitionProxy>();
  const partitioned = async (kind: 'keyed' | 'keyless', lost: Lost): Promise<WorldTracker> => {
    const proxy = await proxies.get(`${kind}-${lost}`, () =>
      PartitionProxy.start(trackers[kind].url, lost, PARTITION.capMs),
    );
    return {
      url: proxy.url,
      store: trackers[kind].store,
      holdRanOut: (repo) => proxy.ranOut(repo),
      watchHeld: (repo, onHeld) => proxy.watch(repo, onHeld),
    };
  };
  const fickleRuns = new Map<string, FickleIds>();
  const model = buildModelServer({ fickle: (runId) => fickleRuns.get(runId) ?? false });
  apps.push(model);
  const modelUrl = await listen(model);
  const { code } = await bundleWorkflowCode({
    workflowsPath: sweepWorkflowsPath(),
    workflowInterceptorModules: workflowSources().interceptorModules,
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
  });
  const workflowBundle = path.join(dir, 'agent-workflow-bundle.js');
  writeFileSync(workflowBundle, code);
  const workerScript = await buildWorkerScript();

  return {
    server,
    env,
    trackers,
    mcpLane,
    trackerProcess,
    partitioned,
    noMcpConfig,
    serverPid: host.pid,
    workerScript,
    modelUrl,
    fickleRuns,
    workflowBundle,
    dir,
    async modelCalls(runId) {
      const res = await model.inject({ method: 'GET', url: `/calls?run=${encodeURIComponent(runId)}` });
      return (res.json() as { calls: number }).calls;
    },
    temporal: host,
    async close(keepTemporal = false) {
      for (const proc of await processes.started()) await proc.host.close();
      for (const proxy of await proxies.started()) await proxy.close();
      for (const lane of await lanes.started())
        await Promise.all([lane.hosts.keyed.close(), lane.hosts.keyless.close()]);
      for (const app of apps) await app.close();
      for (const store of stores) store.close();
      rmSync(workerScript, { force: true });
      if (!options.server) await server.close(keepTemporal);
    },
  };
}

/**
 * What the world starts the first time a name is asked for (a lane's MCP servers, a tracker process, a
 * partition proxy), and gives again every time after; and all of it, for closing.
 */
class OnFirstUse<V> {
  private readonly byName = new Map<string, Promise<V>>();

  get(name: string, start: (name: string) => Promise<V>): Promise<V> {
    let started = this.byName.get(name);
    if (!started) {
      started = start(name);
      this.byName.set(name, started);
    }
    return started;
  }

  /** Every one that started (those that failed to are left out). */
  async started(): Promise<V[]> {
    const all = await Promise.all([...this.byName.values()].map((p) => p.catch(() => null)));
    return all.filter((v): v is Awaited<V> & V => v !== null);
  }
}
