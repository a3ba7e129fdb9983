// The machine's limit: clean runs per second with no kill at all, and their CPU.
import { agentGenerationEnv, runOptions } from '../agent-sweep/agent-suite';
import { suiteRun } from '../sweep/engine/batch';
import { Generation } from '../sweep/engine/generation';
import { newScenario } from '../sweep/engine/scenario';
import { cpuSeconds, treeCpuSeconds } from '../sweep/engine/timings';
import type { AgentRow } from '../agent-sweep/rows';
import type { World } from '../agent-sweep/world';

/** What {@link measureLimit} found. */
export interface Limit {
  runs: number;
  seconds: number;
  runsPerSecond: number;
  /** CPU seconds per run, by process. */
  cpuPerRun: { worker: number; server: number | null; harness: number };
}

/**
 * The machine's limit for a variant: clean runs per second that the sweep's own Temporal dev server
 * and one worker process (the sweep's worker, tuning and scripted world) sustain with no kill at all.
 * The worker is loaded first, then `runs` runs are started at once and timed until the last one ends.
 */
export async function measureLimit(world: World, variant: AgentRow, runs: number): Promise<Limit> {
  const client = world.env.client;
  const taskQueue = `limit-${Date.now()}`;
  const gen = new Generation(agentGenerationEnv(world, taskQueue), { targets: {} }, `limit-${variant.name}`);
  try {
    await gen.ready;
    const workerAtStart = cpuSeconds(gen.pid) ?? 0;
    const serverAtStart = world.serverPid ? treeCpuSeconds(world.serverPid) : null;
    const harnessAtStart = process.cpuUsage();
    const started = performance.now();
    gen.go();
    const scenarios = Array.from({ length: runs }, () => newScenario(variant, 'clean', 'limit', [], []));
    const tracker = world.trackers[variant.tracker];
    await Promise.all(
      scenarios.map(async (s) => {
        const handle = await client.workflow.start(
          variant.workflowType,
          runOptions({ ...suiteRun(s, taskQueue, client), row: variant }, tracker.url),
        );
        await handle.result();
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const harness = process.cpuUsage(harnessAtStart);
    const serverNow = world.serverPid ? treeCpuSeconds(world.serverPid) : null;
    return {
      runs,
      seconds,
      runsPerSecond: runs / seconds,
      cpuPerRun: {
        worker: ((cpuSeconds(gen.pid) ?? workerAtStart) - workerAtStart) / runs,
        server: serverNow !== null && serverAtStart !== null ? (serverNow - serverAtStart) / runs : null,
        harness: (harness.user + harness.system) / 1e6 / runs,
      },
    };
  } finally {
    await gen.kill();
  }
}
