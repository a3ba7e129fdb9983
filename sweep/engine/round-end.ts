// How a round of a batch ends: its worker (or its Temporal server) killed, what a fault does to each
// run at the kill, and each kill checked against the point it was meant to land on.
import type { Client } from '@temporalio/client';
import type { Generation } from './generation';
import type { BatchTemporal } from '../hosts/killable-server-host';
import { cpuSeconds, type Timings } from './timings';
import { runFaultOf, type serverDeathOf } from '../faults';
import type { Running } from './runs';

/**
 * Ends a round once its runs are parked (or ended). Where only the worker dies: one SIGKILL. Where the
 * server dies (`serverDies`): it is SIGKILLed and started again on its file, with the worker killed
 * while it is down (`worker-dies`: so it never takes a task from the restarted server) or left alive
 * (`worker-survives`: the caller resumes its runs). A dead worker's unfinished runs leave its sticky queue.
 */
export async function endRound(
  gen: Generation,
  serverDies: ReturnType<typeof serverDeathOf>,
  temporal: BatchTemporal,
  timings: Timings,
  unfinished: () => Running[],
): Promise<void> {
  const killWorker = async () => {
    timings.workerCpu += cpuSeconds(gen.pid) ?? 0;
    await gen.kill();
  };
  if (!serverDies) await killWorker();
  else await temporal.restart!(serverDies === 'worker-dies' ? killWorker : undefined);
  if (serverDies !== 'worker-survives') await moveOffDeadWorker(temporal.client, unfinished());
}

/**
 * Does each run's row's run fault to it at kill `round`, its worker dead (a reset, a failure for its
 * retry policy, a cancel, a terminate: `Fault.atKill`), and notes what was done in `ScenarioResult.operations`.
 */
export async function atKill(runs: Running[], client: Client, round: number): Promise<void> {
  await Promise.all(
    runs.map(async (s) => {
      const line = await runFaultOf(s.row)!.atKill!({
        client,
        workflowId: s.workflowId,
        reason: `crash sweep: ${s.id}, at kill ${round + 1}`,
      });
      (s.operations ??= []).push(line);
    }),
  );
}

/** Each killed run must have been parked on the point it was meant to die at. */
export function checkLandings(killed: Running[], gen: Generation, round: number): void {
  for (const s of killed) {
    const at = gen.parked.get(s.workflowId);
    if (!at) {
      s.error ??= `kill ${round + 1} never landed: the run ended before reaching ${JSON.stringify(s.kills[round])}`;
      continue;
    }
    s.landed.push(at);
    const want = s.expected[round];
    if (want && (want.name !== at.name || want.detail !== at.detail)) {
      s.error = `kill ${round + 1} landed on ${at.name} (${at.detail}), expected ${want.name} (${want.detail})`;
    }
  }
}

/**
 * Takes runs off a dead worker's sticky queue. The server would otherwise keep sending their next
 * workflow task there for up to 10 s after the worker's last poll, each one waiting out a sticky
 * schedule-to-start timeout and adding an event whose presence depends on the clock; after this the
 * next task goes straight to the batch's task queue and the next generation.
 */
async function moveOffDeadWorker(client: Client, runs: Running[]): Promise<void> {
  await Promise.all(
    runs.map(
      (s) =>
        client.workflowService
          .resetStickyTaskQueue({ namespace: client.options.namespace, execution: { workflowId: s.workflowId } })
          .catch(() => {}), // the run ended meanwhile
    ),
  );
}
