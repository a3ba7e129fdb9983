// A new build is deployed mid-run: unversioned, the worker killed at a point is replaced by one running changed workflow code; versioned, the current version moves to it.
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { waitForServer, type BatchOfFault, type Fault } from './fault';

/**
 * How the next build is deployed: without Worker Versioning (every run goes on with the next build),
 * or with it, each run's workflows `pinned` to the build that started them or moved to the current
 * build at their next workflow task (`auto-upgrade`).
 */
export type Versioning = 'unversioned' | 'pinned' | 'auto-upgrade';

const VERSIONINGS: readonly Versioning[] = ['unversioned', 'pinned', 'auto-upgrade'];

/** Whether `text` names a way to deploy. */
export function isVersioning(text: unknown): text is Versioning {
  return VERSIONINGS.includes(text as Versioning);
}

/** The environment variable that tells a suite's worker process which build to run (unset: the first). */
export const BUILD_ENV = 'CRASH_SWEEP_BUILD';
/**
 * Set for a versioned deploy: `pinned` or `auto-upgrade`, the workflows' versioning behavior. The worker
 * process then runs both builds, each a Worker of the deployment {@link DEPLOYMENT_ENV} names, the first
 * with build id {@link FIRST_BUILD_ID} and the next with the build's name.
 */
export const VERSIONING_ENV = 'CRASH_SWEEP_VERSIONING';
/** The Worker Deployment of a versioned deploy: one per batch (its task queue's name). */
export const DEPLOYMENT_ENV = 'CRASH_SWEEP_DEPLOYMENT';
/** The build id of the first build in a versioned deploy. */
export const FIRST_BUILD_ID = 'first';

/** How long the engine waits for a new current version to reach the task queues before any worker polls. */
const ROUTING_WAIT_MS = 30_000;

/**
 * Makes `buildId` the current version of `deploymentName` (as `temporal worker deployment
 * set-current-version` does), before any of its workers poll, and waits until the routing has reached
 * every task queue: a workflow task dispatched before then would still go to the version before.
 */
export async function setCurrentBuild(client: Client, deploymentName: string, buildId: string): Promise<void> {
  const { namespace, identity } = client.options;
  await client.workflowService.setWorkerDeploymentCurrentVersion({
    namespace,
    deploymentName,
    buildId,
    identity,
    // The workers of the version poll after this (a killed batch's next generation): nobody polls yet.
    allowNoPollers: true,
    ignoreMissingTaskQueues: true,
  });
  const done = temporal.api.enums.v1.RoutingConfigUpdateState.ROUTING_CONFIG_UPDATE_STATE_COMPLETED;
  await waitForServer(
    async () => {
      const { workerDeploymentInfo: info } = await client.workflowService.describeWorkerDeployment({
        namespace,
        deploymentName,
      });
      return (
        info?.routingConfig?.currentDeploymentVersion?.buildId === buildId && info.routingConfigUpdateState === done
      );
    },
    {
      withinMs: ROUTING_WAIT_MS,
      everyMs: 50,
      tooLong: () =>
        `the current version of ${deploymentName} did not become ${buildId} within ${ROUTING_WAIT_MS / 1000} s`,
    },
  );
}

/**
 * A deploy in the middle of a run. The build is named by `build`; the suite's worker reads it from
 * `CRASH_SWEEP_BUILD` (the config suite: the row's `nextBuild`, bundled as the first build is).
 *
 * - `unversioned` (the default), as a rolling deploy does it: the worker killed at each point is
 *   replaced by one that runs the next build (and every generation after it does); the run's history,
 *   written by the build before, is replayed by the new code. A change that is not replay-safe makes
 *   the new worker's workflow task fail with a non-determinism error, again at every attempt: the run
 *   sticks (`sweep/judge/stuck.ts` names the cause). A change behind `patched()`, or none, goes on.
 * - `pinned`, `auto-upgrade`: Worker Versioning, as a rainbow deploy does it. Each batch is a Worker
 *   Deployment of its own (named after its task queue) whose every generation runs both builds; the
 *   first build is the current version while the runs start, and at the first kill, once the worker
 *   is dead, the next build becomes the current version (`setCurrentBuild`). A pinned run stays on
 *   the build that started it, which is still there to finish it; an auto-upgrade run moves to the
 *   next build at its next workflow task and replays its history there, as an unversioned one does.
 */
export function newBuild(build: string, versioning: Versioning = 'unversioned'): Fault {
  const versioned = versioning !== 'unversioned';
  return {
    name: `new-build:${build}${versioned ? `:${versioning}` : ''}`,
    kind: 'new-build',
    target: 'build',
    summary: versioned
      ? `at the first kill the next build becomes the current version of the runs' Worker Deployment (${versioning}); both builds' workers run`
      : 'the worker killed at the point is replaced by one running the next build of the workflow code',
    nextBuild: build,
    ...(versioning === 'pinned' ? { pinsRuns: true } : {}),
    workerEnv({ round, taskQueue }: BatchOfFault): Record<string, string> {
      // Versioned, every generation runs both builds; unversioned, those after the first kill run the next.
      if (versioned) return { [BUILD_ENV]: build, [VERSIONING_ENV]: versioning, [DEPLOYMENT_ENV]: taskQueue };
      return round > 0 ? { [BUILD_ENV]: build } : {};
    },
    ...(versioned
      ? {
          beforeRuns: ({ client, taskQueue }: BatchOfFault) => setCurrentBuild(client, taskQueue, FIRST_BUILD_ID),
          async afterKill({ client, taskQueue, round }: BatchOfFault) {
            if (round === 0) await setCurrentBuild(client, taskQueue, build);
          },
        }
      : {}),
  };
}
