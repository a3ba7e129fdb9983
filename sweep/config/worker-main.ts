// The worker process for a user's config: its activities and workflows with the crash-sweep plugin and the crash hook.
import { Worker } from '@temporalio/worker';
import { runMain } from '../../common/cli';
import { loadSweepConfig } from './load-config';
import { runCrashWorker } from '../worker/crash-worker';
import { crashSweepPlugin } from '../plugin';
import { BUILD_ENV } from '../faults/new-build';

/** The bundle this process runs: the first build's, or the next build the engine names (a deploy mid-run). */
function bundleOfThisBuild(): string {
  const build = process.env[BUILD_ENV];
  if (!build) return process.env.CRASH_SWEEP_BUNDLE!;
  const next = (JSON.parse(process.env.CRASH_SWEEP_NEXT_BUNDLES ?? '{}') as Record<string, string>)[build];
  if (!next) throw new Error(`no bundle of the build ${JSON.stringify(build)} (CRASH_SWEEP_NEXT_BUNDLES)`);
  return next;
}

/**
 * A worker process for a user's config (`npm run sweep -- --config FILE`): loads the config file
 * (`CRASH_SWEEP_CONFIG`), makes its activities, and runs the workflows of the bundle the sweep built
 * (`CRASH_SWEEP_BUNDLE`, or the next build's after a deploy mid-run) with the crash-sweep plugin. See `runCrashWorker` for the rest.
 */
async function main(): Promise<void> {
  const { config } = loadSweepConfig(process.env.CRASH_SWEEP_CONFIG ?? '');
  await runCrashWorker(async (settings) =>
    Worker.create({
      connection: settings.connection,
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      ...(settings.identity ? { identity: settings.identity } : {}),
      workflowBundle: { codePath: bundleOfThisBuild() },
      activities: await config.activities(),
      interceptors: { activity: settings.activityInterceptors },
      plugins: [crashSweepPlugin(config.points)],
      ...settings.tuning,
    }),
  );
}

runMain(main);
