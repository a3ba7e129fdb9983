// Runs scenarios in batches, in lanes side by side, each lane on its own task queue.
import { randomUUID } from 'node:crypto';
import { runBatch } from './batch';
import type { Scenario } from './scenario';
import type { SweepServer } from './sweep-server';
import type { SweepSuite } from './suite';
import type { BatchTemporal } from './killable-server-host';
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
  /** The Temporal server the lane kills, for rows whose server dies (`serverDies`); started on first use. */
  killableServer?(lane: number): Promise<BatchTemporal>;
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
  // A batch kills its server or it does not: rows of each kind are batched apart.
  const kinds = new Map<string, Scenario[]>();
  for (const s of scenarios) {
    const kind = s.row.serverDies ?? '';
    kinds.set(kind, [...(kinds.get(kind) ?? []), s]);
  }
  const batches = [...kinds.values()].flatMap((group) => evenBatches(group, options));
  const shared: BatchTemporal = {
    address: options.server.temporal.address,
    namespace: options.server.env.client.options.namespace,
    client: options.server.env.client,
  };
  const started = Date.now();
  let done = 0;
  let nextBatch = 0;
  let failed = false;
  const lane = async (laneNo: number) => {
    while (nextBatch < batches.length && !failed) {
      const batch = batches[nextBatch++];
      batchCounter += 1;
      const kills = batch[0].row.serverDies !== undefined;
      if (kills && !options.killableServer)
        throw new Error(`${batch[0].row.name}: its Temporal server dies, and this sweep has no server it may kill`);
      const temporal = kills ? await options.killableServer!(laneNo) : shared;
      try {
        await runBatch(batch, { ...options, temporal, lane: laneNo, taskQueue: `${QUEUE_PREFIX}-${batchCounter}` });
      } catch (err) {
        failed = true; // the other lanes start no new batch
        throw err;
      }
      done += batch.length;
      const seconds = (Date.now() - started) / 1000;
      const rate = done / seconds;
      const left = done < scenarios.length ? `, about ${Math.ceil((scenarios.length - done) / rate)} s left` : '';
      options.progress(`${phase}: ${done}/${scenarios.length} scenarios, ${rate.toFixed(1)}/s${left}`);
    }
  };
  // A lane that fails stops the others after their batch, and the sweep waits for them: each batch
  // kills the worker processes it started, so none is left running when the error reaches the caller.
  const ends = await Promise.allSettled(
    Array.from({ length: Math.min(options.lanes, batches.length) }, (_, i) => lane(i)),
  );
  const failure = ends.find((e): e is PromiseRejectedResult => e.status === 'rejected');
  if (failure) throw failure.reason;
}

/** Even batches, at least one per lane: a short last batch would leave the other lanes idle. */
function evenBatches(scenarios: Scenario[], options: RunOptions): Scenario[][] {
  const count = Math.max(Math.min(options.lanes, scenarios.length), Math.ceil(scenarios.length / options.batchSize));
  const size = Math.ceil(scenarios.length / Math.max(1, count));
  const batches: Scenario[][] = [];
  for (let start = 0; start < scenarios.length; start += size) batches.push(scenarios.slice(start, start + size));
  return batches;
}
