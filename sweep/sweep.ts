import { randomUUID } from 'node:crypto';
import { runBatch } from './batch';
import type { Scenario } from './scenario';
import type { SweepServer } from './server';
import type { SweepSuite } from './suite';
import type { Timings } from './timings';

/** Options of {@link runScenarios}. */
export interface RunOptions {
  server: SweepServer;
  suite: SweepSuite;
  /** How many scenarios share one worker generation. */
  batchSize: number;
  /** How many batches run side by side, each on its own task queue with its own generations. */
  lanes: number;
  timings: Timings;
  /** Called with a line of progress now and then. */
  progress: (line: string) => void;
  /** Counts generations (for the label of plan files). */
  counter: { generations: number };
}

/** Tells this process's task queues from another sweep's on a shared server (`--address`). */
const QUEUE_PREFIX = `crash-sweep-${randomUUID().slice(0, 8)}`;
let batchCounter = 0;

/**
 * Runs scenarios in batches, `lanes` batches at a time: while one batch waits for a dead worker's
 * tasks to time out, another one works. Each batch has its own task queue, so a generation only ever
 * sees the runs of its own batch.
 */
export async function runScenarios(scenarios: Scenario[], options: RunOptions, phase: string): Promise<void> {
  // Even batches, at least one per lane: a short last batch would leave the other lanes idle.
  const count = Math.max(Math.min(options.lanes, scenarios.length), Math.ceil(scenarios.length / options.batchSize));
  const size = Math.ceil(scenarios.length / Math.max(1, count));
  const batches: Scenario[][] = [];
  for (let start = 0; start < scenarios.length; start += size) batches.push(scenarios.slice(start, start + size));
  const started = Date.now();
  let done = 0;
  let nextBatch = 0;
  const lane = async (laneNo: number) => {
    while (nextBatch < batches.length) {
      const batch = batches[nextBatch++];
      batchCounter += 1;
      await runBatch(batch, { ...options, lane: laneNo, taskQueue: `${QUEUE_PREFIX}-${batchCounter}` });
      done += batch.length;
      const seconds = (Date.now() - started) / 1000;
      const rate = done / seconds;
      const left = done < scenarios.length ? `, about ${Math.ceil((scenarios.length - done) / rate)} s left` : '';
      options.progress(`${phase}: ${done}/${scenarios.length} scenarios, ${rate.toFixed(1)}/s${left}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.lanes, batches.length) }, (_, i) => lane(i)));
}
