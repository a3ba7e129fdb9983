// The worker process for a user's config: its activities and workflows with the crash-sweep plugin and the crash hook.
import { Worker } from '@temporalio/worker';
import { runMain } from '../../common/cli';
import { loadSweepConfig } from './load-config';
import { runCrashWorker } from '../worker/crash-worker';
import { crashSweepPlugin } from '../plugin';

/**
 * A worker process for a user's config (`npm run sweep -- --config FILE`): loads the config file
 * (`CRASH_SWEEP_CONFIG`), makes its activities, and runs the workflows of the bundle the sweep built
 * (`CRASH_SWEEP_BUNDLE`) with the crash-sweep plugin. See `runCrashWorker` for the rest.
 */
async function main(): Promise<void> {
  const { config } = loadSweepConfig(process.env.CRASH_SWEEP_CONFIG ?? '');
  await runCrashWorker(async (settings) =>
    Worker.create({
      connection: settings.connection,
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      ...(settings.identity ? { identity: settings.identity } : {}),
      workflowBundle: { codePath: process.env.CRASH_SWEEP_BUNDLE! },
      activities: await config.activities(),
      interceptors: { activity: settings.activityInterceptors },
      plugins: [crashSweepPlugin(config.points)],
      ...settings.tuning,
    }),
  );
}

runMain(main);
