// A user's config file as a suite of the sweep engine.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { NO_SIGNALS } from '../../common/crash-points';
import { entryFile, tsxFlags } from '../../common/tsx';
import type { SweepConfig } from './define-sweep';
import { declaredReceivers, loadSweepConfig } from './load-config';
import { DeclaredReceivers } from '../hosts/declared-receivers';
import { crashSweepPlugin, RUN_HEADER } from '../plugin';
import type { SuiteFactory } from '../engine/passes';
import type { PointEvent, SuiteRow, SuiteRun, SweepSuite } from '../engine/suite';
import { ReplayCheck } from './replay-check';
import { SERVER_DIES_WORKFLOW_TASK_TIMEOUT, SWEEP_WORKFLOW_TASK_TIMEOUT } from '../engine/timeouts';
import { clientWithCaps, describeCaps, rowCaps } from './activity-timeouts';
import { faultNamed, newBuild, pinsRuns, reset, serverDeathOf, serverDies, slowReceiver } from '../faults';

/** The rows a config declares: its `rows`, or one row named after the config (or its file). */
export function configRows(config: SweepConfig, file: string): SuiteRow[] {
  const name = config.name ?? path.basename(file).replace(/(\.crash-sweep)?\.config\.[cm]?[jt]s$|\.[cm]?[jt]s$/, '');
  const rows = config.rows ?? [{ name, label: config.label, control: config.control }];
  const receivers = declaredReceivers(config);
  return rows.map((r) => ({
    name: r.name,
    label: r.label ?? r.name,
    ...(r.firstPassOnly ? { firstPassOnly: true } : {}),
    ...(r.control ? { control: true } : {}),
    faults: [
      ...(r.slowActivities ? [slowReceiver({ activities: r.slowActivities })] : []),
      ...(r.serverDies ? [serverDies(r.serverDies)] : []),
      ...(r.reset ? [reset(r.reset)] : []),
      ...(r.faults ?? []).map((f) => faultNamed(f, receivers)),
      ...(r.nextBuild ? [newBuild(r.name, r.versioning)] : []),
    ],
  }));
}

/**
 * A user's config file as a suite of the sweep engine: their services started by `setup`, their
 * workflows bundled once with the crash-sweep plugin, worker processes that load the same file and
 * make their activities, runs started by `start` (with their activity timeouts capped, unless the
 * config keeps its own), a scripted person at every `workflow.waiting`, and counts from `check`.
 */
export function configSuite(file: string): SuiteFactory {
  const factory: SuiteFactory = async (server) => {
    const { config, file: abs } = loadSweepConfig(file);
    const ready = (await config.setup?.()) ?? {};
    try {
      return suiteOf(config, abs, server.dir, { env: ready.env ?? {}, ...(await bundlesOf(config, server.dir)) });
    } catch (err) {
      await config.teardown?.();
      throw err;
    }
  };
  // A user's workflow may race a timer against an activity: its timers fire close to their time.
  return Object.assign(factory, { preciseTimers: true });
}

/** The config's workflows bundled with the sweep's plugin, and the next builds of its rows with a deploy mid-run. */
interface Bundles {
  bundle: string;
  /** By the build's name (the row's). */
  nextBundles: Record<string, string>;
}

/** Bundles the config's workflows, and each next build a row names, into the sweep's folder. */
async function bundlesOf(config: SweepConfig, dir: string): Promise<Bundles> {
  const bundleOf = async (workflowsPath: string, file: string) => {
    const { code } = await bundleWorkflowCode({
      workflowsPath,
      plugins: [crashSweepPlugin(config.points), ...(config.plugins ?? [])],
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
    });
    const bundle = path.join(dir, file);
    writeFileSync(bundle, code);
    return bundle;
  };
  const bundle = await bundleOf(config.workflowsPath, 'config-workflow-bundle.js');
  const nextBundles: Record<string, string> = {};
  for (const [i, r] of (config.rows ?? []).entries())
    if (r.nextBuild) nextBundles[r.name] = await bundleOf(r.nextBuild, `config-workflow-bundle-next-${i + 1}.js`);
  return { bundle, nextBundles };
}

/** The config's scripted person: called at each `workflow.waiting`; what it failed at is the run's error. */
class ConfigPerson {
  private readonly busy = new Set<Promise<void>>();
  private readonly failures: string[] = [];

  constructor(private readonly person: SweepConfig['person']) {}

  notice(run: SuiteRun, event: PointEvent): void {
    if (event.name !== 'workflow.waiting' || !this.person) return;
    const signals = event.detail
      .split(' ')[0]
      .split(',')
      .filter((s) => s !== NO_SIGNALS);
    const work = this.person({
      client: run.client,
      workflowId: run.workflowId,
      runId: run.runId,
      row: run.row.name,
      signals,
    }).catch((err: Error) => void this.failures.push(`${run.workflowId}: the person failed: ${err.message}`));
    this.busy.add(work);
    void work.finally(() => this.busy.delete(work));
  }

  async settle(): Promise<void> {
    while (this.busy.size > 0) await Promise.allSettled([...this.busy]);
  }

  failureOf(workflowId: string): string | undefined {
    return this.failures.find((f) => f.startsWith(`${workflowId}:`));
  }
}

/** The suite of a loaded config, its bundles made and its services set up (`env`, from `setup`). */
function suiteOf(
  config: SweepConfig,
  abs: string,
  dir: string,
  { env, bundle, nextBundles }: Bundles & { env: Record<string, string> },
): SweepSuite {
  const rows = configRows(config, abs);
  const capped = (config.activityTimeouts ?? 'capped') === 'capped';
  const person = new ConfigPerson(config.person);
  // A row with a next build: every history it records, replayed by that build.
  const replays = new ReplayCheck();
  // The receivers the config declares, hosted by the sweep: one process of each per lane, behind its proxy.
  const receivers = new DeclaredReceivers(config.receivers ?? [], dir, path.dirname(abs), RUN_HEADER);
  return {
    rows,
    // A user's workflow may wait for a callback that a receiver, asked again, never sends.
    waitingRunsStuck: true,
    // Each distinct cap the rows use, said once; and each replay check of a next build.
    get notes() {
      return [...(capped ? [...new Set(rows.map((r) => describeCaps(rowCaps(r))))] : []), ...replays.notes()];
    },
    worker: {
      script: entryFile(path.join(__dirname, 'worker-main.ts')),
      execArgv: tsxFlags(),
      env: {
        ...env,
        CRASH_SWEEP_CONFIG: abs,
        CRASH_SWEEP_BUNDLE: bundle,
        CRASH_SWEEP_NEXT_BUNDLES: JSON.stringify(nextBundles),
      },
      cwd: path.dirname(abs),
    },
    ...(config.receivers?.length ? { batch: (lane, runs) => receivers.planFor(lane, runs) } : {}),
    start: (c, run) =>
      config.start({
        client: capped ? clientWithCaps(c, rowCaps(run.row)) : c,
        taskQueue: run.taskQueue,
        workflowId: run.workflowId,
        runId: run.runId,
        row: run.row.name,
        workflowTaskTimeout:
          serverDeathOf(run.row) === 'worker-survives'
            ? SERVER_DIES_WORKFLOW_TASK_TIMEOUT
            : SWEEP_WORKFLOW_TASK_TIMEOUT,
      }),
    onPoint: (run, event) => person.notice(run, event),
    settle: () => person.settle(),
    async check(run, result, failure) {
      const next = nextBundles[run.row.name];
      if (next) await replays.check(run.row.name, next, run.client, run.workflowId, pinsRuns(run.row));
      const failed = person.failureOf(run.workflowId);
      if (failed) throw new Error(failed);
      await receivers.checkRun(run);
      const { client, workflowId, runId } = run;
      const receiverUrls = receivers.urlsOf(workflowId);
      const c = await config.check({
        ...{ client, workflowId, runId, row: run.row.name, result },
        ...(failure !== undefined ? { failure } : {}),
        receivers: receiverUrls,
      });
      for (const k of ['dups', 'missing'] as const) {
        if (!Number.isInteger(c?.[k]) || c[k] < 0)
          throw new Error(`check() must return { dups, missing } as whole numbers; it returned ${JSON.stringify(c)}`);
      }
      return c;
    },
    ...(config.receivers?.length
      ? { stats: () => ({ receiverKills: receivers.deaths.kills, receiverReplies: receivers.deaths.requests }) }
      : {}),
    close: async () => {
      replays.close();
      await receivers.close();
      await config.teardown?.();
    },
  };
}
