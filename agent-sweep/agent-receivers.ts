// The agent's receivers under the sweep's faults: trackers and MCP servers that die, a partition in front of a tracker, the operator behind it.
import { key } from '../common/key';
import { WRITE_CALL_IDS } from '../model/script';
import { activityOperationOf, operateOnStuckCall, partitionOf, receiverDeathOf } from '../sweep/faults';
import { ReceiverKills, type ReceiverKill } from '../sweep/hosts/receiver-host';
import type { BatchPlan, SuiteRun } from '../sweep/engine/suite';
import type { AgentRow } from './rows';
import type { World, WorldTracker } from './world';

/**
 * The receivers of the agent's runs and the faults their rows name: a run uses the world's keyed or
 * keyless tracker, or one of its own (a tracker process of its lane that dies at a point of its own, a
 * proxy in front of the world's tracker that loses a write or its reply); MCP servers of the lane die
 * once per write; an operator acts on a call stuck behind the partition.
 */
export class AgentReceivers {
  readonly mcpKills = { kills: 0, requests: 0 };
  readonly trackerKills = { kills: 0, requests: 0 };
  /** The tracker of each run whose row kills its tracker or partitions it. */
  private readonly ownTracker = new Map<string, WorldTracker>();
  /** What the operator did to each call that got stuck (or why it could not), for the run's check. */
  private readonly operations = new Map<string, Promise<string>>();

  constructor(private readonly world: World) {}

  /** The tracker a run writes to. */
  trackerOf(run: SuiteRun<AgentRow>): WorldTracker {
    return this.ownTracker.get(run.runId) ?? this.world.trackers[run.row.tracker];
  }

  /** What a batch needs for its runs' receiver faults: the MCP servers' config, the kills, the partitions. */
  async planFor(lane: number, runs: SuiteRun<AgentRow>[]): Promise<BatchPlan> {
    const plan: BatchPlan = {};
    const kills: ReceiverKills[] = [];
    const viaMcp = runs.filter((r) => receiverDeathOf(r.row)?.receiver === 'mcp');
    if (viaMcp.length > 0) {
      const { targets, config } = await this.mcpTargets(lane, viaMcp);
      kills.push(new ReceiverKills(targets, this.mcpKills));
      plan.env = { MCP_CONFIG: config };
    }
    const dying = runs.filter((r) => receiverDeathOf(r.row)?.receiver === 'tracker');
    if (dying.length > 0) kills.push(new ReceiverKills(await this.trackerTargets(lane, dying), this.trackerKills));
    for (const r of runs) await this.partition(r);
    if (kills.length > 0)
      plan.poll = async (state) => {
        for (const k of kills) await k.poll(state);
      };
    return plan;
  }

  /** Throws if the run's counts cannot be trusted: its operator never acted or failed, its write was held until the cap. */
  async checkRun(run: SuiteRun<AgentRow>): Promise<void> {
    if (activityOperationOf(run.row)) {
      const operation = this.operations.get(run.workflowId);
      if (!operation) throw new Error('no call of the run got stuck behind the partition: the operator never acted');
      await operation;
    }
    if (this.trackerOf(run).holdRanOut?.(run.tag))
      throw new Error(
        `the run's first write was held (a slow tracker, or a partition) until its cap and the run never came back for it: ` +
          'its counts would hang on that clock',
      );
  }

  /** A partition in front of the run's tracker, if its row names one; the operator watches it if the row names an operation. */
  private async partition(run: SuiteRun<AgentRow>): Promise<void> {
    const lost = partitionOf(run.row);
    if (!lost) return;
    if (run.row.tracker !== 'keyed' && run.row.tracker !== 'keyless')
      throw new Error(
        `${run.row.name}: a partition stands in front of the keyed or the keyless tracker, not ${run.row.tracker}`,
      );
    const tracker = await this.world.partitioned(run.row.tracker, lost);
    if (activityOperationOf(run.row)) tracker.watchHeld?.(run.tag, () => this.operate(run));
    this.ownTracker.set(run.runId, tracker);
  }

  /** The operator: a write of a run whose row names an activity operation is stuck behind the partition, so it acts on its activity. */
  private operate(run: SuiteRun<AgentRow>): void {
    const operation = activityOperationOf(run.row);
    if (!operation || this.operations.has(run.workflowId)) return;
    const done = operateOnStuckCall(run.client, run.workflowId, operation, 'runTool');
    done.catch(() => undefined); // read by the run's check
    this.operations.set(run.workflowId, done);
  }

  /** MCP servers that die: each holds a write by its call's key. */
  private async mcpTargets(
    lane: number,
    viaMcp: SuiteRun<AgentRow>[],
  ): Promise<{ targets: ReceiverKill[]; config: string }> {
    const mcpLane = await this.world.mcpLane(lane);
    const owners = new Map(
      viaMcp.flatMap((r) => WRITE_CALL_IDS.map((id) => [key(r.runId, id), r.workflowId] as const)),
    );
    const targets = (['keyed', 'keyless'] as const).map((kind) => ({
      host: mcpLane.hosts[kind],
      runs: viaMcp.filter((r) => r.row.tracker === kind),
      ownerOf: (k: string) => owners.get(k),
    }));
    return { targets, config: mcpLane.config };
  }

  /** Tracker processes that die: one per kind and point the runs need; each holds a write by the run's repo. */
  private async trackerTargets(lane: number, dying: SuiteRun<AgentRow>[]): Promise<ReceiverKill[]> {
    const targets: ReceiverKill[] = [];
    for (const kind of ['keyed', 'keyless'] as const) {
      for (const point of ['received', 'committed'] as const) {
        const using = dying.filter((r) => {
          const death = receiverDeathOf(r.row);
          return r.row.tracker === kind && death?.receiver === 'tracker' && death.at === point;
        });
        if (using.length === 0) continue;
        const proc = await this.world.trackerProcess(lane, kind, point);
        for (const r of using) this.ownTracker.set(r.runId, proc);
        const owners = new Map(using.map((r) => [r.tag, r.workflowId]));
        targets.push({ host: proc.host, runs: using, ownerOf: (repo) => owners.get(repo) });
      }
    }
    return targets;
  }
}
