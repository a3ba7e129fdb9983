// The crash sweep for any suite: the clean runs, the first pass and the second, and the report.
// Each step lives in a file of its own (clean-runs, reruns, planning, lanes; the judge's files); this
// one puts them in order.
import { summarize, type Row } from '../judge/counting';
import {
  firstPass,
  parseScenarioLabel,
  pickRows,
  secondPass,
  shareOf,
  type ScenarioChoice,
  type Shard,
} from './planning';
import type { RanScenario, Scenario } from './scenario';
import { judgeControls, type ControlVerdict } from '../judge/controls';
import { withOtherEnds } from '../judge/other-ends';
import { runCleanRuns, type CleanRuns } from './clean-runs';
import { runAndRerun, type Rerun, type RerunContext } from './reruns';
import { startServer, type SweepServer, type TemporalHost } from '../hosts/sweep-server';
import type { SweepSuite } from './suite';
import { runScenarios, type Lanes } from './lanes';
import { KillableServerHost } from '../hosts/killable-server-host';
import { cpuWithEndedChildren, Timings, treeCpuSeconds } from './timings';
import type { AnySearchAttributeKey } from '../../common/search-attribute-flags';
import { firstPassOnly } from '../faults';

/** Makes the suite to sweep, on the sweep's server (the agent's: `agentSuite`; a config file's: `configSuite`). */
export interface SuiteFactory {
  (server: SweepServer): Promise<SweepSuite>;
  /** The search attributes the suite's runs set: registered on every dev server the sweep starts. Default none. */
  searchAttributes?: readonly AnySearchAttributeKey[];
  /**
   * Whether its runs need timers close to their time (a user's workflow whose timer races an activity):
   * every dev server the sweep starts is started so (`PRECISE_TIMER_FLAGS`). Default `false`.
   */
  preciseTimers?: boolean;
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
  /**
   * How many batches run side by side, or `auto`: one, and one more while the machine leaves a lane's
   * worth of cores idle (at most one lane per 1.5 cores). Default {@link DEFAULT_LANES}.
   */
  lanes?: Lanes;
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
  /**
   * How many times a scenario that erred is run again, alone in a smaller batch, before its error
   * stands: on a busy machine a live task can time out or a kill land late, which says nothing of the
   * swept code. A scenario counts only when a run of it is clean. As many times, a row whose two clean
   * runs parted runs its pair again until a pair agrees (`clean-runs.ts`). Default {@link DEFAULT_RERUNS}; 0: none.
   */
  reruns?: number;
  /**
   * Run only this share of the scenarios, one of several sweep processes on one server (`--shard K/N`;
   * `crash-sweep merge` joins their reports). Default: every scenario.
   */
  shard?: Shard;
  /** Progress lines, for people. Default: none. */
  progress?: (line: string) => void;
  /**
   * How long each batch waits, once its runs are parked, before the kill: the late kill of a busy
   * machine, where a batch waits long for its last runs to park, made on purpose so a test can
   * reproduce what it does to the runs parked first. Default 0.
   */
  lateKillMs?: number;
  /**
   * A file for the log of the sweep's own dev server (its errors: an update it cancelled as a worker
   * died, say, which a sweep meets by design). Default: the sweep's stderr.
   */
  serverLog?: string;
}

export type { Rerun } from './reruns';

/** The sweep's findings. */
export interface SweepReport {
  rows: Row[];
  /** The control rows and what they showed (`judge/controls.ts`); null for one scenario or a shard. */
  controls: ControlVerdict | null;
  /** The table of the first pass alone: what a sweep without the second pass prints. */
  firstPass: Row[];
  scenarios: RanScenario[];
  /** The runs that erred and were run again, in order; the scenario that replaced each is in `scenarios`. */
  reruns: Rerun[];
  /** Each row's crash points, in the order a clean run reaches them. */
  points: Record<string, Array<{ name: string; detail: string }>>;
  /** The share of the scenarios this sweep ran, if it was one of several (`--shard K/N`). */
  shard: Shard | null;
  generations: number;
  /** The most batches that ran side by side. */
  lanes: number;
  /** The suite's own figures (the agent's: MCP server kills, and the writes they cut off). */
  stats: Record<string, number>;
  /** What the suite says of how it ran its rows (`SweepSuite.notes`). */
  notes: string[];
  /** How many times the sweep SIGKILLed a Temporal server (rows with `serverDies`). */
  temporalKills: number;
  seconds: number;
  /** The dev server left running (with `keepServer`): the caller stops it. */
  kept: TemporalHost | null;
  /** Where the time went. */
  timings: Timings;
  /**
   * CPU seconds by process: the harness (trackers, model server, person, client), the Temporal server,
   * the workers; and every process of the sweep together (receiver processes, hosts and the helpers
   * each started, too), measured once all have ended (`null`: not on Linux, or a server kept).
   */
  cpu: { harness: number; server: number | null; workers: number; everyProcess: number | null };
}

/** Scenarios per worker generation: larger batches overload the dev server on 2 cores. */
export const DEFAULT_BATCH = 150;
/** Batches in flight at once: chosen by the sweep from the cores the machine leaves idle. */
export const DEFAULT_LANES: Lanes = 'auto';
/** Re-runs of a scenario that erred, before its error stands. */
export const DEFAULT_RERUNS = 2;
/**
 * The Temporal servers the sweep kills, one per lane for the rows whose server dies, each on a
 * database file of its own; started on first use.
 */
class KillableServers {
  private readonly hosts = new Map<number, Promise<KillableServerHost>>();

  constructor(
    private readonly dir: string,
    private readonly searchAttributes: readonly AnySearchAttributeKey[],
    private readonly preciseTimers: boolean,
  ) {}

  /** The lane's server. */
  of(lane: number): Promise<KillableServerHost> {
    if (!this.hosts.has(lane))
      this.hosts.set(
        lane,
        KillableServerHost.start(this.dir, `lane-${lane}`, this.searchAttributes, this.preciseTimers),
      );
    return this.hosts.get(lane)!;
  }

  /** How many times the sweep SIGKILLed one of them. */
  async kills(): Promise<number> {
    return (await Promise.all([...this.hosts.values()])).reduce((sum, t) => sum + t.kills, 0);
  }

  /** Their CPU seconds, every process of each. */
  async cpuSeconds(): Promise<number> {
    const hosts = await Promise.all([...this.hosts.values()].map((t) => t.catch(() => null)));
    return hosts.reduce((sum, h) => sum + (h?.cpuSeconds() ?? 0), 0);
  }

  /** Stops them all. */
  async close(): Promise<void> {
    await Promise.all([...this.hosts.values()].map(async (t) => (await t.catch(() => null))?.close()));
  }
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
  const cpuAtStart = cpuWithEndedChildren();
  const report = await sweepAndStop(options);
  // Every process the sweep started has now been stopped and waited for (but a server it keeps).
  const cpuNow = options.keepServer ? null : cpuWithEndedChildren();
  report.cpu.everyProcess = cpuNow !== null && cpuAtStart !== null ? cpuNow - cpuAtStart : null;
  return report;
}

/** A sweep's options with their defaults, read in one place and handed down. */
interface SweepSettings {
  progress: (line: string) => void;
  batchSize: number;
  lanes: Lanes;
  maxReruns: number;
  /** The one scenario to run, if one is asked for (`scenario`). */
  only: ScenarioChoice | null;
}

function settingsOf(options: SweepOptions): SweepSettings {
  const only = options.scenario ? parseScenarioLabel(options.scenario) : null;
  if (only && options.shard) throw new Error('one scenario (scenario) cannot be split into shards (shard)');
  return {
    progress: options.progress ?? (() => {}),
    batchSize: options.batchSize ?? DEFAULT_BATCH,
    lanes: options.lanes ?? DEFAULT_LANES,
    maxReruns: options.reruns ?? DEFAULT_RERUNS,
    only,
  };
}

/** The sweep: its servers started, the passes run, and everything it started stopped. */
async function sweepAndStop(options: SweepOptions): Promise<SweepReport> {
  const started = Date.now();
  const settings = settingsOf(options);
  const searchAttributes = options.suite.searchAttributes ?? [];
  const preciseTimers = options.suite.preciseTimers ?? false;
  const server = await startServer({
    address: options.address,
    namespace: options.namespace,
    ui: options.keepServer,
    searchAttributes,
    preciseTimers,
    serverLog: options.serverLog,
  });
  const cpuAtStart = process.cpuUsage();
  const serverPid = server.temporal.pid;
  const serverCpuAtStart = serverPid ? treeCpuSeconds(serverPid) : null;
  let suite: SweepSuite | null = null;
  const killable = new KillableServers(server.dir, searchAttributes, preciseTimers);
  try {
    suite = await options.suite(server);
    const rows = pickRows(suite.rows, options.rows);
    const counter = { generations: 0, lanes: 0 };
    const timings = new Timings();
    const passes = await runPasses(rows, { server, suite, killable, settings, options, counter, timings });
    const table = summarize(rows, passes.scenarios, passes.cleanOutcomes);
    const { only } = settings;
    return {
      rows: table,
      // A part of the scenarios (one, or a shard) proves nothing of a control: only a whole sweep judges them.
      controls: only || options.shard ? null : judgeControls(table),
      firstPass: summarize(rows, passes.ranOnce, passes.cleanOutcomes),
      scenarios: passes.scenarios,
      reruns: passes.reruns,
      points: passes.points,
      shard: options.shard ?? null,
      generations: counter.generations,
      lanes: counter.lanes,
      stats: suite.stats?.() ?? {},
      notes: [...(suite.notes ?? []), ...passes.notes],
      temporalKills: await killable.kills(),
      seconds: (Date.now() - started) / 1000,
      // The servers the sweep killed stay up too (their runs' clients, `ScenarioResult.client`, still work) until the caller stops them.
      kept: options.keepServer
        ? { ...server.temporal, stop: () => killable.close().then(() => server.temporal.stop()) }
        : null,
      timings,
      cpu: {
        harness: cpuTotal(process.cpuUsage(cpuAtStart)),
        // The sweep's server, and those it killed for the rows whose server dies (which do most of their work).
        server:
          serverPid && serverCpuAtStart !== null
            ? (treeCpuSeconds(serverPid) ?? serverCpuAtStart) - serverCpuAtStart + (await killable.cpuSeconds())
            : null,
        workers: timings.workerCpu,
        everyProcess: null,
      },
    };
  } finally {
    await suite?.close?.();
    if (!options.keepServer) await killable.close();
    await server.close(options.keepServer);
  }
}

/** What the passes ran: the clean runs' findings, the first pass, every scenario and the runs done again. */
interface Passes {
  points: SweepReport['points'];
  cleanOutcomes: CleanRuns['outcomes'];
  notes: string[];
  ranOnce: RanScenario[];
  scenarios: RanScenario[];
  reruns: Rerun[];
}

/** What the passes run on. */
interface PassesContext {
  server: SweepServer;
  suite: SweepSuite;
  killable: KillableServers;
  settings: SweepSettings;
  options: SweepOptions;
  counter: { generations: number; lanes: number };
  timings: Timings;
}

/** The clean runs, the first pass and the second, each scenario that erred run again. */
async function runPasses(rows: SweepSuite['rows'], ctx: PassesContext): Promise<Passes> {
  const { server, suite, settings, options } = ctx;
  const { progress, batchSize, lanes, only } = settings;
  // By row: the points only a worker process's first run reaches, found by the clean runs.
  const setupPoints = new Map<string, string[]>();
  const runOptions = {
    server,
    suite,
    lanes,
    timings: ctx.timings,
    progress,
    counter: ctx.counter,
    setupPoints,
    killableServer: (lane: number) => ctx.killable.of(lane),
    lateKillMs: options.lateKillMs,
  };
  const run = (scenarios: readonly Scenario[], phase: string, size = batchSize) =>
    runScenarios(scenarios, { ...runOptions, batchSize: size }, phase);
  const reruns: Rerun[] = [];
  const rerun: RerunContext = { run, batchSize, maxReruns: settings.maxReruns, progress, reruns };

  const { cleans, points, outcomes: cleanOutcomes, notes } = await runCleanRuns(rows, server, rerun, setupPoints);

  const planned = firstPass(cleans, only);
  if (only && planned.length === 0)
    throw new Error(`no scenario ${options.scenario}: the clean run has ${cleans[0].finalPoints.length} points`);
  const once = shareOf(planned, options.shard);
  if (options.shard)
    progress(
      `shard ${options.shard.index}/${options.shard.count}: ${once.length} of the first pass's ${planned.length} scenarios, and the second pass of those`,
    );
  const erred = async (s: RanScenario) => s.error ?? null;
  // Before the second pass, which kills each first-pass restart at the points it reached.
  const ranOnce = await runAndRerun(once, 'once', erred, rerun);

  const twice = options.twice === false ? [] : secondPass(ranOnce, only);
  if (only?.second !== undefined && twice.length === 0) {
    if (rows.some((r) => firstPassOnly(r)))
      throw new Error(`no scenario ${options.scenario}: ${rows[0].name} is swept in the first pass only`);
    throw new Error(`no scenario ${options.scenario}: the restart of ${only.first} reached fewer points`);
  }
  const ranTwice = twice.length > 0 ? await runAndRerun(twice, 'twice', erred, rerun) : [];
  const scenarios = withOtherEnds([...ranOnce, ...ranTwice], cleans);
  return { points, cleanOutcomes, notes, ranOnce, scenarios, reruns };
}
