// The crash sweep for any suite: the clean runs, the first pass and the second, and the report.
import type { Client } from '@temporalio/client';
import { summarize, type Outcome, type Row } from '../judge/counting';
import { firstPass, parseScenarioLabel, pickRows, secondPass, shareOf, type Shard } from './planning';
import { newScenario, type Scenario } from './scenario';
import { timedOutActivityType } from '../judge/audit';
import { compareCleanRuns, describeParting, describeSetup } from '../judge/clean-twice';
import { judgeControls, type ControlVerdict } from '../judge/controls';
import { pointKey, samePointForEveryRun } from '../worker/line-protocol';
import { startServer, type SweepServer, type TemporalHost } from '../hosts/sweep-server';
import type { SweepSuite } from './suite';
import { runScenarios, type Lanes } from './lanes';
import { KillableServerHost } from '../hosts/killable-server-host';
import { cpuSeconds, Timings } from './timings';
import type { AnySearchAttributeKey } from '../../common/search-attribute-flags';
import { firstPassOnly, toleranceOf } from '../faults';

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
   * swept code. A scenario counts only when a run of it is clean. Default {@link DEFAULT_RERUNS}; 0: none.
   */
  reruns?: number;
  /**
   * Run only this share of the scenarios, one of several sweep processes on one server (`--shard K/N`;
   * `crash-sweep merge` joins their reports). Default: every scenario.
   */
  shard?: Shard;
  /** Progress lines, for people. Default: none. */
  progress?: (line: string) => void;
}

/** A run of a scenario that erred and was run again (a fresh run of the same row, killed at the same points). */
export interface Rerun {
  /** The scenario's id (`agent twice 3.7`). */
  id: string;
  /** Which run of it erred: 1 for the first, 2 for its first re-run. */
  attempt: number;
  /** Why that run did not count. */
  error: string;
}

/** The sweep's findings. */
export interface SweepReport {
  rows: Row[];
  /** The control rows and what they showed (`judge/controls.ts`); null for one scenario or a shard. */
  controls: ControlVerdict | null;
  /** The table of the first pass alone: what a sweep without the second pass prints. */
  firstPass: Row[];
  scenarios: Scenario[];
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
  /** CPU seconds by process: the harness (trackers, model server, person, client), the Temporal server, the workers. */
  cpu: { harness: number; server: number | null; workers: number };
}

/** Scenarios per worker generation: larger batches overload the dev server on 2 cores. */
export const DEFAULT_BATCH = 150;
/** Batches in flight at once: chosen by the sweep from the cores the machine leaves idle. */
export const DEFAULT_LANES: Lanes = 'auto';
/** Re-runs of a scenario that erred, before its error stands. */
export const DEFAULT_RERUNS = 2;
/** The largest batch of re-runs: a smaller batch loads the machine less. */
const RERUN_BATCH = 25;

/** Thrown when a clean run is not clean: every count of the sweep would be meaningless. */
export class DirtyCleanRunError extends Error {
  readonly row: string;
  /** A busy machine can cause it (a timeout): the clean run is run again before the sweep gives up. */
  readonly mayBeLoad: boolean;
  constructor(row: string, reason: string, mayBeLoad = false) {
    super(`the clean run of ${row} ${reason}`);
    this.row = row;
    this.mayBeLoad = mayBeLoad;
    this.name = 'DirtyCleanRunError';
  }
}

/**
 * A clean run must see no retry and no timeout, so that every duplicate the sweep reports was caused
 * by a kill. Only a row that injects a fault (or kills a server of its own, or has a slow receiver) may
 * retry, and only after a failure; only its slow activities may time out. Returns the first problem.
 */
async function historyProblem(client: Client, s: Scenario): Promise<DirtyCleanRunError | null> {
  const history = await client.workflow.getHandle(s.workflowId).fetchHistory();
  const events = history.events ?? [];
  for (const e of events) {
    const timedOut = e.activityTaskTimedOutEventAttributes;
    if (timedOut && !toleranceOf(s.row).slowActivities.includes(timedOutActivityType(events, e)))
      return new DirtyCleanRunError(s.row.name, 'had an activity time out', true);
    if (e.workflowTaskTimedOutEventAttributes)
      return new DirtyCleanRunError(s.row.name, 'had a workflow task time out', true);
    if (e.workflowTaskFailedEventAttributes) return new DirtyCleanRunError(s.row.name, 'had a workflow task fail');
    const started = e.activityTaskStartedEventAttributes;
    const attempt = started?.attempt ?? 1;
    if (attempt > 1 && !toleranceOf(s.row).retries) {
      // An attempt that timed out in a live worker leaves no event of its own, only the next attempt's
      // last failure: a busy machine, which a run again may not meet.
      const afterTimeout = !!started?.lastFailure?.timeoutFailureInfo;
      return new DirtyCleanRunError(
        s.row.name,
        `retried an activity (attempt ${attempt}${afterTimeout ? ', after a timeout' : ''})`,
        afterTimeout,
      );
    }
  }
  return null;
}

/** The timers a run started, by duration (`100ms`), in its history's order. */
async function timersOf(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const timeout = e.timerStartedEventAttributes?.startToFireTimeout;
    if (!timeout) return [];
    return [`${Number(timeout.seconds ?? 0) * 1000 + Math.round((timeout.nanos ?? 0) / 1e6)} ms`];
  });
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

/** A fresh run of a scenario: the same row, killed at the same points, expected to land where it was. */
function rerunOf(s: Scenario, renewed: ReadonlyMap<Scenario, Scenario>): Scenario {
  const fresh = newScenario(s.row, s.pass, s.label, s.kills, s.expected);
  // A second clean run follows its first's new run: the two run again together.
  const first = s.after && renewed.get(s.after);
  if (first) fresh.after = first;
  return fresh;
}

/** Why scenarios erred, for a progress line: each kind of error (its words up to the first detail) with its count. */
export function summarizeErrors(errors: string[]): string {
  const kinds = new Map<string, number>();
  for (const e of errors) {
    const kind = e.split(/[:(]/)[0].trim();
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return [...kinds].map(([kind, n]) => `${n} ${kind}`).join(', ');
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
  if (only && options.shard) throw new Error('one scenario (scenario) cannot be split into shards (shard)');
  const searchAttributes = options.suite.searchAttributes ?? [];
  const preciseTimers = options.suite.preciseTimers ?? false;
  const server = await startServer({
    address: options.address,
    namespace: options.namespace,
    ui: options.keepServer,
    searchAttributes,
    preciseTimers,
  });
  const cpuAtStart = process.cpuUsage();
  const serverPid = server.temporal.pid;
  const serverCpuAtStart = serverPid ? cpuSeconds(serverPid) : null;
  let suite: SweepSuite | null = null;
  // One Temporal server per lane for the rows whose server dies, on a database file of its own.
  const killable = new Map<number, Promise<KillableServerHost>>();
  const killableServer = (lane: number) => {
    if (!killable.has(lane))
      killable.set(lane, KillableServerHost.start(server.dir, `lane-${lane}`, searchAttributes, preciseTimers));
    return killable.get(lane)!;
  };
  try {
    suite = await options.suite(server);
    const rows = pickRows(suite.rows, options.rows);
    const counter = { generations: 0, lanes: 0 };
    const timings = new Timings();
    const ready = suite;
    // By row: the points only a worker process's first run reaches, found by the clean runs.
    const setupPoints = new Map<string, string[]>();
    const notes: string[] = [];
    const run = (scenarios: Scenario[], phase: string, size = batchSize) =>
      runScenarios(
        scenarios,
        { server, suite: ready, batchSize: size, lanes, timings, progress, counter, killableServer, setupPoints },
        phase,
      );

    const reruns: Rerun[] = [];
    const maxReruns = options.reruns ?? DEFAULT_RERUNS;
    /** Runs the scenarios, then each one that erred again, alone in smaller batches, until a run is clean or none are left. */
    const runAndRerun = async (
      scenarios: Scenario[],
      phase: string,
      erred: (s: Scenario) => Promise<string | null>,
    ) => {
      await run(scenarios, phase);
      for (let attempt = 1; ; attempt++) {
        const failed: Array<{ at: number; error: string }> = [];
        for (const [at, s] of scenarios.entries()) {
          const error = await erred(s);
          if (error) failed.push({ at, error });
        }
        if (failed.length === 0 || attempt > maxReruns) return;
        progress(
          `${phase}: ${failed.length} scenario(s) erred, running them again (${attempt} of ${maxReruns}): ${summarizeErrors(failed.map((f) => f.error))}`,
        );
        for (const { at, error } of failed) reruns.push({ id: scenarios[at].id, attempt, error });
        // A clean run runs again with its pair, the second after the first in one worker process, so
        // that the two still compare (clean-twice.ts).
        const redo = new Set(failed.map((f) => f.at));
        for (const at of [...redo]) {
          const s = scenarios[at];
          const pair = scenarios.findIndex((o) => o.after === s || (s.after !== undefined && o === s.after));
          if (pair >= 0) redo.add(pair);
        }
        const renewed = new Map<Scenario, Scenario>();
        const again = [...redo]
          .sort((a, b) => a - b)
          .map((at) => {
            const s = scenarios[at];
            const fresh = rerunOf(s, renewed);
            renewed.set(s, fresh);
            return (scenarios[at] = fresh);
          });
        await run(again, `${phase}, again`, Math.min(batchSize, RERUN_BATCH));
      }
    };

    // Each row runs clean twice, the second run after the first in the same worker process, which
    // shows what a process sets up once and whether the row's points depend on timing (clean-twice.ts).
    const firsts = rows.map((v) => newScenario(v, 'clean', 'run', [], []));
    const seconds = firsts.map((c) => ({ ...newScenario(c.row, 'clean', 'again', [], []), after: c }));
    const cleanRuns = [...firsts, ...seconds];
    // A clean run that erred, or whose history has a timeout, may have met a busy machine: it runs
    // again. Any other problem of its history stops the sweep at once.
    const problems = new Map<Scenario, DirtyCleanRunError>();
    await runAndRerun(cleanRuns, 'clean runs', async (c) => {
      if (c.error) return c.error;
      const problem = await historyProblem(c.client ?? server.env.client, c);
      if (problem && !problem.mayBeLoad) throw problem;
      if (problem) problems.set(c, problem);
      return problem?.message ?? null;
    });
    const cleans = cleanRuns.slice(0, rows.length);
    const points: SweepReport['points'] = {};
    const cleanOutcomes = new Map<string, Outcome>();
    for (const c of cleanRuns) {
      if (c.error) throw new DirtyCleanRunError(c.row.name, `failed: ${c.error}`);
      const o = c.outcome!;
      if (
        !toleranceOf(c.row).damagedWithoutKills &&
        (o.dups !== 0 || o.missing !== 0 || o.orphans !== 0 || o.asks !== 0)
      )
        throw new DirtyCleanRunError(c.row.name, `left ${JSON.stringify(o)}`);
      if (c.finalPoints.length === 0)
        throw new DirtyCleanRunError(c.row.name, 'reached no crash point: is the crash-sweep plugin in its worker?');
      // Its last run's history (every run of it met the machine's load).
      const problem = problems.get(c);
      if (problem) throw problem;
      if (c.after) continue;
      points[c.row.name] = c.finalPoints.map(({ name, detail }) => ({ name, detail }));
      cleanOutcomes.set(c.row.name, o);
    }
    for (const [i, c] of cleans.entries()) {
      const again = cleanRuns[rows.length + i];
      if (again.taskQueue !== c.taskQueue) {
        progress(`clean runs: ${c.row.name}'s two clean runs ran in different worker processes; not compared`);
        continue;
      }
      const seen = (s: Scenario) => s.finalPoints.map((p) => samePointForEveryRun(p, s));
      const { setup, parting } = compareCleanRuns(seen(c), seen(again));
      if (setup.length > 0) {
        setupPoints.set(c.row.name, setup);
        notes.push(describeSetup(c.row.name, setup));
        const kept = c.finalPoints.filter((p) => !setup.includes(pointKey(samePointForEveryRun(p, c))));
        c.finalPoints = kept;
        points[c.row.name] = kept.map(({ name, detail }) => ({ name, detail }));
      }
      if (parting) {
        const timers = await timersOf(c.client ?? server.env.client, c.workflowId);
        notes.push(describeParting(c.row.name, parting, timers));
      }
    }
    for (const note of notes) progress(`clean runs: ${note}`);
    progress(`clean runs: ${cleans.map((c) => `${c.row.name} ${c.finalPoints.length} points`).join(', ')}`);

    const planned = firstPass(cleans, only);
    if (only && planned.length === 0)
      throw new Error(`no scenario ${options.scenario}: the clean run has ${cleans[0].finalPoints.length} points`);
    const once = shareOf(planned, options.shard);
    if (options.shard)
      progress(
        `shard ${options.shard.index}/${options.shard.count}: ${once.length} of the first pass's ${planned.length} scenarios, and the second pass of those`,
      );
    const erred = async (s: Scenario) => s.error ?? null;
    // Before the second pass, which kills each first-pass restart at the points it reached.
    await runAndRerun(once, 'once', erred);

    const twice = options.twice === false ? [] : secondPass(once, only);
    if (only?.second !== undefined && twice.length === 0) {
      if (rows.some((r) => firstPassOnly(r)))
        throw new Error(`no scenario ${options.scenario}: ${rows[0].name} is swept in the first pass only`);
      throw new Error(`no scenario ${options.scenario}: the restart of ${only.first} reached fewer points`);
    }
    if (twice.length > 0) await runAndRerun(twice, 'twice', erred);

    const scenarios = [...once, ...twice];
    // A run's expected end is its clean run's (a saga may fail by design), or the stop its row's
    // operation made (cancelled, terminated); any other end is damage.
    for (const s of scenarios) {
      const expected = cleans.find((c) => c.row.name === s.row.name)?.end;
      const stop = s.operations ? (s.row.faults?.find((f) => f.stops)?.stops?.end ?? null) : null;
      if (s.outcome && s.end && expected && s.end !== expected && s.end !== stop) s.otherEnd = { expected };
    }
    const temporalKills = (await Promise.all([...killable.values()])).reduce((sum, t) => sum + t.kills, 0);
    const table = summarize(rows, scenarios, cleanOutcomes);
    return {
      rows: table,
      // A part of the scenarios (one, or a shard) proves nothing of a control: only a whole sweep judges them.
      controls: only || options.shard ? null : judgeControls(table),
      firstPass: summarize(rows, once, cleanOutcomes),
      scenarios,
      reruns,
      points,
      shard: options.shard ?? null,
      generations: counter.generations,
      lanes: counter.lanes,
      stats: suite.stats?.() ?? {},
      notes: [...(suite.notes ?? []), ...notes],
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
