// Stuck runs, looked for while a batch's last generation finishes its runs.
import type { Client } from '@temporalio/client';
import { describeStuck, findStuck, findTaskFailure, type QuietRuns } from '../judge/stuck';
import { nextBuildOf } from '../faults';
import { sleep, type Running, type RunWatch } from './runs';

/**
 * Looks for runs of the batch that are stuck (`stuck.ts`) while the last generation finishes them:
 * first after 6 s (a stuck run needs about 7 s for its ten attempts, and most batches have finished by
 * then, so a healthy batch costs the server nothing), then every 2 s. A stuck run is marked and
 * terminated, so nothing waits for it; a clean run that gets stuck is an error (stuck with no kill).
 * Runs that wait with nothing in flight are looked for only where the suite asks (`waiting`).
 */
export function watchForStuck(
  batch: Running[],
  runs: RunWatch,
  client: Client,
  waiting: boolean,
): { stop(): Promise<void> } {
  let stopped = false;
  const quiet: QuietRuns | null = waiting ? new Map() : null;
  const loop = (async () => {
    for (let round = 0; !stopped; round++) {
      // Slept in short steps, so that a batch that finishes meanwhile is not held up.
      for (let t = 0; t < (round === 0 ? 6_000 : 2_000) && !stopped; t += 100) await sleep(100);
      if (stopped) break;
      const open = batch.filter((s) => !s.error && !s.stuck && !runs.ended.has(s.workflowId));
      await Promise.all(
        open.map(async (s) => {
          const failedTask = s.pass === 'clean' ? await findTaskFailure(client, s.workflowId) : null;
          const stuck = failedTask ?? (await findStuck(client, s.workflowId, quiet, Date.now(), !!nextBuildOf(s.row)));
          if (!stuck || runs.ended.has(s.workflowId)) return;
          if (failedTask) s.taskFailure = describeStuck(failedTask);
          if (s.pass === 'clean') s.error = `got stuck with no kill: ${describeStuck(stuck)}`;
          else s.stuck = stuck;
          await client.workflow
            .getHandle(s.workflowId)
            .terminate(`stuck: ${describeStuck(stuck)}`)
            .catch(() => {}); // it ended meanwhile
        }),
      );
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
