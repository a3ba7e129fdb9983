// Runs scenarios in batches, in lanes side by side, each lane on its own task queue.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { runBatch } from './batch';
import type { RanScenario, Scenario } from './scenario';
import type { SweepServer } from '../hosts/sweep-server';
import type { SweepSuite } from './suite';
import type { BatchTemporal } from '../hosts/killable-server-host';
import type { Timings } from './timings';
import { nextBuildOf, serverDeathOf } from '../faults';
import { IdleMeter, LANE_CHECK_MS, laneLimit, shouldAddLane, shouldDropLane } from './lane-count';

/** How many batches run side by side: a number, or `auto` to add lanes while the machine has cores to spare. */
export type Lanes = number | 'auto';

const CORES = os.availableParallelism();

/** Options of {@link runScenarios}. */
export interface RunOptions {
  server: SweepServer;
  suite: SweepSuite;
  /** How many scenarios share one worker generation. */
  batchSize: number;
  /**
   * How many batches run side by side, each on its own task queue with its own generations; `auto`:
   * one, and one more whenever the machine leaves a lane's worth of cores idle (lane-count.ts).
   */
  lanes: Lanes;
  timings: Timings;
  /** Called with a line of progress now and then. */
  progress: (line: string) => void;
  /** Counts generations (for the label of plan files), and the most lanes that ran at once. */
  counter: { generations: number; lanes: number };
  /** The Temporal server the lane kills, for rows whose server dies (`serverDies`); started on first use. */
  killableServer?(lane: number): Promise<BatchTemporal>;
  /** By row: the points only a worker process's first run reaches, which no run counts (`clean-twice.ts`). */
  setupPoints?: ReadonlyMap<string, readonly string[]>;
  /** How long each batch waits, once its runs are parked, before the kill (see `SweepOptions.lateKillMs`). */
  lateKillMs?: number;
}

/** Tells this process's task queues from another sweep's on a shared server (`--address`). */
const QUEUE_PREFIX = `crash-sweep-${randomUUID().slice(0, 8)}`;
let batchCounter = 0;

/**
 * Runs scenarios in batches, `lanes` batches at a time: while one batch waits for a dead worker's
 * tasks to time out, another one works. Each batch has its own task queue, so a generation only ever
 * sees the runs of its own batch. Returns what each run did, in the order of `scenarios`.
 */
export async function runScenarios(
  scenarios: readonly Scenario[],
  options: RunOptions,
  phase: string,
): Promise<RanScenario[]> {
  return new LanesAtWork(scenarios, options, phase).run();
}

/** The batches of a phase: rows whose server dies, and rows of another build after the kills, batched apart. */
function batchesOf(scenarios: readonly Scenario[], options: RunOptions): Scenario[][] {
  const kinds = new Map<string, Scenario[]>();
  for (const s of scenarios) {
    const kind = `${serverDeathOf(s.row) ?? ''} ${nextBuildOf(s.row) ?? ''}`;
    kinds.set(kind, [...(kinds.get(kind) ?? []), s]);
  }
  // With lanes chosen by the sweep, batches for as many lanes as the machine may run.
  const planned = options.lanes === 'auto' ? laneLimit(CORES) : options.lanes;
  return [...kinds.values()].flatMap((group) => evenBatches(group, options.batchSize, planned));
}

/** A phase's batches, taken in turn by the lanes at work; `auto` adds a lane while cores are idle, and ends one when none are. */
class LanesAtWork {
  private readonly batches: Scenario[][];
  private readonly shared: BatchTemporal;
  private readonly started = Date.now();
  private readonly ran = new Map<Scenario, RanScenario>();
  private readonly meter = new IdleMeter();
  private readonly running: Array<Promise<void>> = [];
  /**
   * The lanes at work, by number: a lane that ended frees its number (and the killable server that
   * goes with it) for the next one, and is not counted against the limit.
   */
  private readonly busy = new Set<number>();
  private done = 0;
  private nextBatch = 0;
  private failed = false;
  private idleCores = CORES;

  constructor(
    private readonly scenarios: readonly Scenario[],
    private readonly options: RunOptions,
    private readonly phase: string,
  ) {
    this.batches = batchesOf(scenarios, options);
    this.shared = {
      address: options.server.temporal.address,
      namespace: options.server.env.client.options.namespace,
      client: options.server.env.client,
    };
  }

  /** Runs every batch; returns what each run did, in the order of the scenarios. */
  async run(): Promise<RanScenario[]> {
    const { lanes } = this.options;
    const fixed = lanes === 'auto' ? 1 : Math.min(lanes, this.batches.length);
    for (let i = 0; i < fixed; i++) this.startLane();
    // `auto`: every few seconds, the idle cores of the last window decide whether a lane more starts.
    const check = lanes === 'auto' ? setInterval(() => this.addLaneIfIdle(), LANE_CHECK_MS) : null;
    // A lane that fails stops the others after their batch, and the sweep waits for them: each batch
    // kills the worker processes it started, so none is left running when the error reaches the caller.
    try {
      let ends: Array<PromiseSettledResult<void>> = [];
      while (ends.length < this.running.length) ends = await Promise.allSettled([...this.running]);
      const failure = ends.find((e): e is PromiseRejectedResult => e.status === 'rejected');
      if (failure) throw failure.reason;
    } finally {
      if (check) clearInterval(check);
    }
    return this.scenarios.map((s) => this.ran.get(s)!);
  }

  private startLane(): number {
    let laneNo = 0;
    while (this.busy.has(laneNo)) laneNo += 1;
    this.busy.add(laneNo);
    this.running.push(this.lane(laneNo).finally(() => this.busy.delete(laneNo)));
    this.options.counter.lanes = Math.max(this.options.counter.lanes, this.busy.size);
    return laneNo;
  }

  private addLaneIfIdle(): void {
    this.idleCores = this.meter.sample();
    const state = {
      running: this.busy.size,
      cores: CORES,
      idleCores: this.idleCores,
      batchesWaiting: this.batches.length - this.nextBatch,
    };
    if (this.failed || !shouldAddLane(state)) return;
    const laneNo = this.startLane();
    this.options.progress(
      `${this.phase}: lane ${laneNo + 1} starts, the machine had ${this.idleCores.toFixed(1)} of ${CORES} cores idle`,
    );
  }

  /** One lane: it takes the next batch until none is left, a lane fails, or (`auto`) the machine has no core to spare. */
  private async lane(laneNo: number): Promise<void> {
    const { options, phase } = this;
    while (this.nextBatch < this.batches.length && !this.failed) {
      if (options.lanes === 'auto' && shouldDropLane({ lane: laneNo, idleCores: this.idleCores })) {
        options.progress(`${phase}: lane ${laneNo + 1} ends, the machine has ${this.idleCores.toFixed(1)} cores idle`);
        return;
      }
      const batch = this.batches[this.nextBatch++];
      batchCounter += 1;
      const kills = serverDeathOf(batch[0].row) !== undefined;
      if (kills && !options.killableServer)
        throw new Error(`${batch[0].row.name}: its Temporal server dies, and this sweep has no server it may kill`);
      const temporal = kills ? await options.killableServer!(laneNo) : this.shared;
      try {
        const results = await runBatch(batch, {
          ...options,
          temporal,
          lane: laneNo,
          taskQueue: `${QUEUE_PREFIX}-${batchCounter}`,
        });
        for (const [i, s] of batch.entries()) this.ran.set(s, results[i]);
      } catch (err) {
        this.failed = true; // the other lanes start no new batch
        throw err;
      }
      this.done += batch.length;
      const seconds = (Date.now() - this.started) / 1000;
      const rate = this.done / seconds;
      const total = this.scenarios.length;
      const left = this.done < total ? `, about ${Math.ceil((total - this.done) / rate)} s left` : '';
      options.progress(`${phase}: ${this.done}/${total} scenarios, ${rate.toFixed(1)}/s${left}`);
    }
  }
}

/** Even batches, at least one per lane: a short last batch would leave the other lanes idle. */
function evenBatches(scenarios: readonly Scenario[], batchSize: number, lanes: number): Scenario[][] {
  const count = Math.max(Math.min(lanes, scenarios.length), Math.ceil(scenarios.length / batchSize));
  const size = Math.ceil(scenarios.length / Math.max(1, count));
  // A second clean run goes in the batch of the run it follows (`Scenario.after`).
  const units: Scenario[][] = [];
  const unitOf = new Map<Scenario, Scenario[]>();
  for (const s of scenarios) {
    const unit = s.after && unitOf.get(s.after);
    if (unit) unit.push(s);
    else {
      units.push([s]);
      unitOf.set(s, units[units.length - 1]);
    }
  }
  const batches: Scenario[][] = [];
  let current: Scenario[] = [];
  for (const unit of units) {
    current.push(...unit);
    if (current.length >= size) {
      batches.push(current);
      current = [];
    }
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
