// The worker process for a user's config: its activities and workflows with the crash-sweep plugin and the crash hook.
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { runMain } from '../../common/cli';
import { loadSweepConfig } from './load-config';
import { runCrashWorker, type CrashWorkerSettings } from '../worker/crash-worker';
import { crashSweepPlugin, type CrashSweepPluginOptions } from '../plugin';
import type { SweepConfig } from './define-sweep';
import { BUILD_ENV, DEPLOYMENT_ENV, FIRST_BUILD_ID, VERSIONING_ENV, isVersioning } from '../faults/new-build';

/** The next build's bundle the engine names (a deploy mid-run). */
function nextBundle(build: string): string {
  const next = (JSON.parse(process.env.CRASH_SWEEP_NEXT_BUNDLES ?? '{}') as Record<string, string>)[build];
  if (!next) throw new Error(`no bundle of the build ${JSON.stringify(build)} (CRASH_SWEEP_NEXT_BUNDLES)`);
  return next;
}

/**
 * The builds this process runs, each a bundle and, in a versioned deploy, its deployment version: the
 * first build's bundle; or the next build's, after an unversioned deploy; or both, each a version of
 * the deployment the engine names, in a versioned one.
 */
function buildsOfThisProcess(): Array<{ bundle: string; deployment?: WorkerOptions['workerDeploymentOptions'] }> {
  const first = process.env.CRASH_SWEEP_BUNDLE!;
  const build = process.env[BUILD_ENV];
  if (!build) return [{ bundle: first }];
  const versioning = process.env[VERSIONING_ENV];
  if (versioning === undefined) return [{ bundle: nextBundle(build) }];
  if (!isVersioning(versioning) || versioning === 'unversioned')
    throw new Error(`${VERSIONING_ENV} is ${JSON.stringify(versioning)}: pinned or auto-upgrade`);
  const deploymentName = process.env[DEPLOYMENT_ENV]!;
  const version = (buildId: string) => ({
    useWorkerVersioning: true as const,
    version: { deploymentName, buildId },
    defaultVersioningBehavior: versioning === 'pinned' ? ('PINNED' as const) : ('AUTO_UPGRADE' as const),
  });
  return [
    { bundle: first, deployment: version(FIRST_BUILD_ID) },
    { bundle: nextBundle(build), deployment: version(build) },
  ];
}

/** The plugin's points: a config that declares receivers has every request name its run (the sweep's proxy reads it). */
function pointsOf(config: SweepConfig): CrashSweepPluginOptions | undefined {
  return config.receivers?.length ? { ...config.points, runHeader: true } : config.points;
}

/**
 * A worker process for a user's config (`npm run sweep -- --config FILE`): loads the config file
 * (`CRASH_SWEEP_CONFIG`), makes its activities, and runs the workflows of the bundle the sweep built
 * (`CRASH_SWEEP_BUNDLE`, or the next build's after a deploy mid-run; both in a versioned deploy) with
 * the crash-sweep plugin. See `runCrashWorker` for the rest.
 */
async function main(): Promise<void> {
  const { config } = loadSweepConfig(process.env.CRASH_SWEEP_CONFIG ?? '');
  await runCrashWorker(async (settings: CrashWorkerSettings) => {
    // Made once: in a versioned deploy both builds' workers share them.
    const activities = await config.activities();
    return Promise.all(
      buildsOfThisProcess().map(({ bundle, deployment }) =>
        Worker.create({
          connection: settings.connection,
          namespace: settings.namespace,
          taskQueue: settings.taskQueue,
          ...(settings.identity ? { identity: settings.identity } : {}),
          workflowBundle: { codePath: bundle },
          activities,
          interceptors: { activity: settings.activityInterceptors },
          plugins: [crashSweepPlugin(pointsOf(config)), ...(config.plugins ?? [])],
          ...(deployment ? { workerDeploymentOptions: deployment } : {}),
          ...settings.tuning,
        }),
      ),
    );
  });
}

runMain(main);
