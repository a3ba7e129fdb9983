// The receivers a suite declares, hosted by the engine: a process and a proxy per lane, and the receiver faults of each run.
import path from 'node:path';
import type { BatchPlan, SuiteRun } from '../engine/suite';
import {
  activityOperationOf,
  declaredPartitionOf,
  operateOnStuckCall,
  receiverDeathOf,
  slowReceiverOf,
} from '../faults';
import { ReceiverProcess } from './receiver-process';
import { ReceiverProxy, type ReceiverStrike } from './receiver-proxy';

/** A receiver a suite declares (a config's `receivers`): what the engine needs to host it. */
export interface DeclaredReceiver {
  /** Its name, in fault names (`receiver-dies:shop`) and in what a run's check gets. */
  name: string;
  /** A Node script (TypeScript through tsx) that listens on 127.0.0.1 at `PORT` and keeps its records under `DATA_DIR`. */
  script: string;
  /** The variable that gives the worker processes its URL. */
  urlEnv: string;
  /** The activity types that call it (an operator looks for the call stuck there among them). */
  activities: readonly string[];
  /** More variables for its process. */
  env?: Record<string, string>;
}

/**
 * How long a run's write may be held for a slow receiver if the run never comes back: far past any
 * capped activity timeout (4 s), so it only ends a run that is stuck elsewhere.
 */
const SLOW_CAP_MS = 30_000;

/** One receiver in one lane: its process behind the engine's proxy, which has it killed. */
class LaneReceiver {
  private constructor(
    readonly process: ReceiverProcess,
    readonly proxy: ReceiverProxy,
  ) {}

  static async start(
    spec: DeclaredReceiver,
    lane: number,
    where: { dir: string; cwd: string; runHeader: string },
  ): Promise<LaneReceiver> {
    const name = `${spec.name} (lane ${lane})`;
    const proc = new ReceiverProcess({
      name,
      script: spec.script,
      cwd: where.cwd,
      dataDir: path.join(where.dir, `${spec.name}-lane-${lane}`),
      ...(spec.env ? { env: spec.env } : {}),
    });
    await proc.start();
    const die = async () => {
      await proc.kill();
      await proc.start();
    };
    const proxy = await ReceiverProxy.start(proc.url, { runHeader: where.runHeader, capMs: SLOW_CAP_MS, die });
    return new LaneReceiver(proc, proxy);
  }

  async close(): Promise<void> {
    await this.proxy.close();
    await this.process.kill();
  }
}

/**
 * The receivers a suite declares, hosted by the engine for any suite: each lane gets its own process
 * of each (so a death in one lane never pauses another), on a data directory of its own that outlives
 * its restarts, behind a proxy (`receiver-proxy.ts`) that carries out the receiver faults of each
 * run's row: `receiver-dies:NAME` (each write of a run reaches the receiver, which is SIGKILLed before
 * its reply gets back, and started again), `slow-receiver:NAME` (each run's first write is held until
 * the run comes back), `partition:NAME:request-lost` and `:reply-lost` (each run's first write, or its
 * reply, is lost until the run comes back), and an operator's `activity-operation` on the call stuck
 * behind such a partition.
 */
export class DeclaredReceivers {
  /** Each lane's receivers, started when the lane's first batch needs them. */
  private readonly lanes = new Map<number, Promise<Hosted[]>>();
  /** The same, once started (what a check reads). */
  private readonly started = new Map<number, Hosted[]>();
  /** The lane each run was started in: where its records are. */
  private readonly laneOf = new Map<string, number>();
  /** What the operator did to each run's call stuck behind a partition (or why it could not). */
  private readonly operations = new Map<string, Promise<string>>();

  constructor(
    private readonly specs: readonly DeclaredReceiver[],
    /** Where their data directories go (a folder of the sweep's own directory). */
    private readonly dir: string,
    /** Where their processes run (the config's folder). */
    private readonly cwd: string,
    /** The header that names the run of each request the suite's workers make (the plugin's `RUN_HEADER`). */
    private readonly runHeader: string,
  ) {}

  /** A batch's variables: each receiver's URL, through its proxy, which now knows what each run's row does to it. */
  async planFor(lane: number, runs: readonly SuiteRun[]): Promise<BatchPlan> {
    const hosted = await this.inLane(lane);
    for (const run of runs) {
      this.laneOf.set(run.workflowId, lane);
      for (const r of hosted) {
        const strike = strikeOf(run, r.spec);
        r.host.proxy.strike(run.workflowId, strike);
        const operation = activityOperationOf(run.row);
        // The operator: a call of the run stuck behind the partition is one of the receiver's activities.
        if (operation && (strike === 'request-lost' || strike === 'reply-lost'))
          r.host.proxy.whenHeld(run.workflowId, () => {
            if (this.operations.has(run.workflowId)) return;
            const done = operateOnStuckCall(run.client, run.workflowId, operation, r.spec.activities);
            done.catch(() => undefined); // read by the run's check
            this.operations.set(run.workflowId, done);
          });
      }
    }
    return { env: Object.fromEntries(hosted.map((r) => [r.spec.urlEnv, r.host.proxy.url])) };
  }

  /** The receivers' deaths, and the replies they cut off, in every lane. */
  get deaths(): { kills: number; requests: number } {
    const all = [...this.started.values()].flat().map((r) => r.host.proxy.deaths);
    return { kills: all.reduce((n, d) => n + d.kills, 0), requests: all.reduce((n, d) => n + d.requests, 0) };
  }

  /** Each receiver's own URL (not the proxy's) in the lane the run was started in: for its check. */
  urlsOf(workflowId: string): Record<string, string> {
    return Object.fromEntries(this.hostedFor(workflowId).map((r) => [r.spec.name, r.host.process.url]));
  }

  /**
   * Throws why the run's counts cannot be trusted: a receiver that did not come back, a write of it
   * held until the cap, an operator who never acted on its stuck call or failed to.
   */
  async checkRun(run: SuiteRun): Promise<void> {
    for (const { spec, host } of this.hostedFor(run.workflowId)) {
      if (host.proxy.failure)
        throw new Error(`the receiver ${spec.name} did not come back after its death: ${host.proxy.failure}`);
      if (host.proxy.ranOut(run.workflowId))
        throw new Error(
          `the run's first write to ${spec.name} was held until its cap and the run never came back for it: its counts would hang on that clock`,
        );
    }
    if (activityOperationOf(run.row) && declaredPartitionOf(run.row)) {
      const operation = this.operations.get(run.workflowId);
      if (!operation) throw new Error('no call of the run got stuck behind the partition: the operator never acted');
      await operation;
    }
  }

  async close(): Promise<void> {
    const lanes = await Promise.allSettled([...this.lanes.values()]);
    for (const lane of lanes) if (lane.status === 'fulfilled') await Promise.all(lane.value.map((r) => r.host.close()));
  }

  private hostedFor(workflowId: string): Hosted[] {
    const lane = this.laneOf.get(workflowId);
    return lane === undefined ? [] : (this.started.get(lane) ?? []);
  }

  private async inLane(lane: number): Promise<Hosted[]> {
    let starting = this.lanes.get(lane);
    if (!starting) {
      const where = { dir: path.join(this.dir, 'receivers'), cwd: this.cwd, runHeader: this.runHeader };
      starting = Promise.all(
        this.specs.map(async (spec) => ({ spec, host: await LaneReceiver.start(spec, lane, where) })),
      );
      this.lanes.set(lane, starting);
    }
    const hosted = await starting;
    this.started.set(lane, hosted);
    return hosted;
  }
}

/** A declared receiver, and its process and proxy in one lane. */
interface Hosted {
  spec: DeclaredReceiver;
  host: LaneReceiver;
}

/** What the run's row does to the receiver `spec`: it dies, it is slow, a partition stands in front of it, or nothing. */
function strikeOf(run: SuiteRun, spec: DeclaredReceiver): ReceiverStrike | undefined {
  const death = receiverDeathOf(run.row);
  if (death?.receiver === 'declared' && death.name === spec.name) return 'dies';
  if (slowReceiverOf(run.row) === spec.name) return 'slow';
  const partition = declaredPartitionOf(run.row);
  if (partition?.receiver === spec.name) return partition.lost === 'request' ? 'request-lost' : 'reply-lost';
  return undefined;
}
