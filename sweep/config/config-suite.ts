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
import type { SuiteRow, SweepSuite } from '../engine/suite';
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
    const env = ready.env ?? {};
    try {
      const bundleOf = async (workflowsPath: string, file: string) => {
        const { code } = await bundleWorkflowCode({
          workflowsPath,
          plugins: [crashSweepPlugin(config.points), ...(config.plugins ?? [])],
          logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
        });
        const bundle = path.join(server.dir, file);
        writeFileSync(bundle, code);
        return bundle;
      };
      const bundle = await bundleOf(config.workflowsPath, 'config-workflow-bundle.js');
      // The next builds of rows with a deploy mid-run (`nextBuild`), by the build's name (the row's).
      const nextBundles: Record<string, string> = {};
      for (const [i, r] of (config.rows ?? []).entries())
        if (r.nextBuild) nextBundles[r.name] = await bundleOf(r.nextBuild, `config-workflow-bundle-next-${i + 1}.js`);
      const busy = new Set<Promise<void>>();
      const failures: string[] = [];
      const rows = configRows(config, abs);
      const capped = (config.activityTimeouts ?? 'capped') === 'capped';
      // A row with a next build: every history it records, replayed by that build.
      const replays = new ReplayCheck();
      // The receivers the config declares, hosted by the sweep: one process of each per lane, behind its proxy.
      const receivers = new DeclaredReceivers(config.receivers ?? [], server.dir, path.dirname(abs), RUN_HEADER);
      const suite: SweepSuite = {
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
        onPoint(run, event) {
          if (event.name !== 'workflow.waiting' || !config.person) return;
          const signals = event.detail
            .split(' ')[0]
            .split(',')
            .filter((s) => s !== NO_SIGNALS);
          const work = config
            .person({ client: run.client, workflowId: run.workflowId, runId: run.runId, row: run.row.name, signals })
            .catch((err: Error) => void failures.push(`${run.workflowId}: the person failed: ${err.message}`));
          busy.add(work);
          void work.finally(() => busy.delete(work));
        },
        async settle() {
          while (busy.size > 0) await Promise.allSettled([...busy]);
        },
        async check(run, result, failure) {
          const next = nextBundles[run.row.name];
          if (next) await replays.check(run.row.name, next, run.client, run.workflowId, pinsRuns(run.row));
          const failed = failures.find((f) => f.startsWith(`${run.workflowId}:`));
          if (failed) throw new Error(failed);
          await receivers.checkRun(run);
          const c = await config.check({
            client: run.client,
            workflowId: run.workflowId,
            runId: run.runId,
            row: run.row.name,
            result,
            ...(failure !== undefined ? { failure } : {}),
            receivers: receivers.urlsOf(run.workflowId),
          });
          for (const k of ['dups', 'missing'] as const) {
            if (!Number.isInteger(c?.[k]) || c[k] < 0)
              throw new Error(
                `check() must return { dups, missing } as whole numbers; it returned ${JSON.stringify(c)}`,
              );
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
      return suite;
    } catch (err) {
      await config.teardown?.();
      throw err;
    }
  };
  // A user's workflow may race a timer against an activity: its timers fire close to their time.
  return Object.assign(factory, { preciseTimers: true });
}
