// The crash sweep for any suite: the clean runs, the first pass and the second, and the report.
import type { Client } from '@temporalio/client';
import { summarize, type Outcome, type Row } from './counting';
import { firstPass, parseScenarioLabel, pickRows, secondPass } from './planning';
import { newScenario, type Scenario } from './scenario';
import { timedOutActivityType } from './audit';
import { startServer, type SweepServer, type TemporalHost } from './sweep-server';
import type { SweepSuite } from './suite';
import { runScenarios } from './lanes';
import { KillableServerHost } from './killable-server-host';
import { cpuSeconds, Timings } from './timings';
import type { AnySearchAttributeKey } from '../../common/search-attribute-flags';

/** Makes the suite to sweep, on the sweep's server (the agent's: `agentSuite`; a config file's: `configSuite`). */
export interface SuiteFactory {
  (server: SweepServer): Promise<SweepSuite>;
  /** The search attributes the suite's runs set: registered on every dev server the sweep starts. Default none. */
  searchAttributes?: readonly AnySearchAttributeKey[];
}

/** Options of {@link runSweep}. */
export interface SweepOptions {
  /** What to sweep. */
  suite: SuiteFactory;
  /** Sweep only these rows, by name. Default: every row of the suite. */
  rows?: string[];
  /** Also run the second pass, which kills each restart at every point it reaches. Default `true`. */
  twice?: boolean;
  /** How many scenarios share one worker generation. Default {@link DEFAULT_BATCH}. */
  batchSize?: number;
  /** How many batches run side by side. Default {@link DEFAULT_LANES}. */
  lanes?: number;
  /**
   * Run one scenario only: its label, `N` (killed once at the clean run's N-th point) or `N.M` (then
   * at the restart's M-th point). Default: every scenario.
   */
  scenario?: string;
  /** An existing Temporal server (`HOST:PORT`) instead of the sweep's own dev server. */
  address?: string;
  /** The namespace on that server. Default `default`. */
  namespace?: string;
  /** Leave the sweep's dev server running, with its Web UI, and return it in the report. Default `false`. */
  keepServer?: boolean;
  /** Progress lines, for people. Default: none. */
  progress?: (line: string) => void;
}

/** The sweep's findings. */
export interface SweepReport {
  rows: Row[];
  /** The table of the first pass alone: what a sweep without the second pass prints. */
  firstPass: Row[];
  scenarios: Scenario[];
  /** Each row's crash points, in the order a clean run reaches them. */
  points: Record<string, Array<{ name: string; detail: string }>>;
  generations: number;
  /** The suite's own figures (the agent's: MCP server kills, and the writes they cut off). */
  stats: Record<string, number>;
  /** How many times the sweep SIGKILLed a Temporal server (rows with `serverDies`). */
  temporalKills: number;
  seconds: number;
  /** The dev server left running (with `keepServer`): the caller stops it. */
  kept: TemporalHost | null;
  /** Where the time went. */
  timings: Timings;
  /** CPU seconds by process: the harness (trackers, model server, person, client), the Temporal server, the workers. */
  cpu: { harness: number; server: number | null; workers: number };
}

/** Scenarios per worker generation: larger batches overload the dev server on 2 cores. */
export const DEFAULT_BATCH = 150;
/** Batches in flight at once. */
export const DEFAULT_LANES = 1;

/** Thrown when a clean run is not clean: every count of the sweep would be meaningless. */
export class DirtyCleanRunError extends Error {
  readonly row: string;
  constructor(row: string, reason: string) {
    super(`the clean run of ${row} ${reason}`);
    this.row = row;
    this.name = 'DirtyCleanRunError';
  }
}

/**
 * A clean run must see no retry and no timeout, so that every duplicate the sweep reports was caused
 * by a kill. Only a row that injects a fault (or kills a server of its own, or has a slow receiver) may
 * retry, and only after a failure; only its slow activities may time out.
 */
async function checkNoRetry(client: Client, s: Scenario): Promise<void> {
  const history = await client.workflow.getHandle(s.workflowId).fetchHistory();
  const events = history.events ?? [];
  for (const e of events) {
    const timedOut = e.activityTaskTimedOutEventAttributes;
    if (timedOut && !s.row.slowActivities?.includes(timedOutActivityType(events, e)))
      throw new DirtyCleanRunError(s.row.name, 'had an activity time out');
    if (e.workflowTaskTimedOutEventAttributes) throw new DirtyCleanRunError(s.row.name, 'had a workflow task time out');
    if (e.workflowTaskFailedEventAttributes) throw new DirtyCleanRunError(s.row.name, 'had a workflow task fail');
    const attempt = e.activityTaskStartedEventAttributes?.attempt ?? 1;
    if (attempt > 1 && !s.row.fault && !s.row.retries)
      throw new DirtyCleanRunError(s.row.name, `retried an activity (attempt ${attempt})`);
  }
}

/** Stops the Temporal servers a sweep started to kill. */
async function closeAll(servers: Map<number, Promise<KillableServerHost>>): Promise<void> {
  await Promise.all([...servers.values()].map(async (t) => (await t.catch(() => null))?.close()));
}

/** CPU seconds of the servers the sweep killed, every process of each. */
async function killableCpu(servers: Map<number, Promise<KillableServerHost>>): Promise<number> {
  const hosts = await Promise.all([...servers.values()].map((t) => t.catch(() => null)));
  return hosts.reduce((sum, h) => sum + (h?.cpuSeconds() ?? 0), 0);
}

function cpuTotal(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1e6;
}

/**
 * The crash sweep, for any suite. A clean run of each row records its crash points; the first pass
 * kills a fresh run at each one and lets a new worker finish it; the second pass also kills that
 * restart once at each point it reaches. Counts come from the suite, which reads its receivers' own
 * records; the engine audits every history and checks that every kill landed where it was meant to.
 */
export async function runSweep(options: SweepOptions): Promise<SweepReport> {
  const started = Date.now();
  const progress = options.progress ?? (() => {});
  const batchSize = options.batchSize ?? DEFAULT_BATCH;
  const lanes = options.lanes ?? DEFAULT_LANES;
  const only = options.scenario ? parseScenarioLabel(options.scenario) : null;
  const searchAttributes = options.suite.searchAttributes ?? [];
  const server = await startServer({
    address: options.address,
    namespace: options.namespace,
    ui: options.keepServer,
    searchAttributes,
  });
  const cpuAtStart = process.cpuUsage();
  const serverPid = server.temporal.pid;
  const serverCpuAtStart = serverPid ? cpuSeconds(serverPid) : null;
  let suite: SweepSuite | null = null;
  // One Temporal server per lane for the rows whose server dies, on a database file of its own.
  const killable = new Map<number, Promise<KillableServerHost>>();
  const killableServer = (lane: number) => {
    if (!killable.has(lane)) killable.set(lane, KillableServerHost.start(server.dir, `lane-${lane}`, searchAttributes));
    return killable.get(lane)!;
  };
  try {
    suite = await options.suite(server);
    const rows = pickRows(suite.rows, options.rows);
    const counter = { generations: 0 };
    const timings = new Timings();
    const ready = suite;
    const run = (scenarios: Scenario[], phase: string) =>
      runScenarios(
        scenarios,
        { server, suite: ready, batchSize, lanes, timings, progress, counter, killableServer },
        phase,
      );

    const cleans = rows.map((v) => newScenario(v, 'clean', 'run', [], []));
    await run(cleans, 'clean runs');
    const points: SweepReport['points'] = {};
    const cleanOutcomes = new Map<string, Outcome>();
    for (const c of cleans) {
      if (c.error) throw new DirtyCleanRunError(c.row.name, `failed: ${c.error}`);
      const o = c.outcome!;
      if (!c.row.damagedWithoutKills && (o.dups !== 0 || o.missing !== 0 || o.orphans !== 0 || o.asks !== 0))
        throw new DirtyCleanRunError(c.row.name, `left ${JSON.stringify(o)}`);
      if (c.finalPoints.length === 0)
        throw new DirtyCleanRunError(c.row.name, 'reached no crash point: is the crash-sweep plugin in its worker?');
      await checkNoRetry(c.client ?? server.env.client, c);
      points[c.row.name] = c.finalPoints.map(({ name, detail }) => ({ name, detail }));
      cleanOutcomes.set(c.row.name, o);
    }
    progress(`clean runs: ${cleans.map((c) => `${c.row.name} ${c.finalPoints.length} points`).join(', ')}`);

    const once = firstPass(cleans, only);
    if (only && once.length === 0)
      throw new Error(`no scenario ${options.scenario}: the clean run has ${cleans[0].finalPoints.length} points`);
    await run(once, 'once');

    const twice = options.twice === false ? [] : secondPass(once, only);
    if (only?.second !== undefined && twice.length === 0) {
      if (rows.some((r) => r.firstPassOnly))
        throw new Error(`no scenario ${options.scenario}: ${rows[0].name} is swept in the first pass only`);
      throw new Error(`no scenario ${options.scenario}: the restart of ${only.first} reached fewer points`);
    }
    if (twice.length > 0) await run(twice, 'twice');

    const scenarios = [...once, ...twice];
    const temporalKills = (await Promise.all([...killable.values()])).reduce((sum, t) => sum + t.kills, 0);
    return {
      rows: summarize(rows, scenarios, cleanOutcomes),
      firstPass: summarize(rows, once, cleanOutcomes),
      scenarios,
      points,
      generations: counter.generations,
      stats: suite.stats?.() ?? {},
      temporalKills,
      seconds: (Date.now() - started) / 1000,
      // The servers the sweep killed stay up too (their runs' clients, `Scenario.client`, still work) until the caller stops them.
      kept: options.keepServer
        ? { ...server.temporal, stop: () => closeAll(killable).then(() => server.temporal.stop()) }
        : null,
      timings,
      cpu: {
        harness: cpuTotal(process.cpuUsage(cpuAtStart)),
        // The sweep's server, and those it killed for the rows whose server dies (which do most of their work).
        server:
          serverPid && serverCpuAtStart !== null
            ? (cpuSeconds(serverPid) ?? serverCpuAtStart) - serverCpuAtStart + (await killableCpu(killable))
            : null,
        workers: timings.workerCpu,
      },
    };
  } finally {
    await suite?.close?.();
    if (!options.keepServer) await closeAll(killable);
    await server.close(options.keepServer);
  }
}
