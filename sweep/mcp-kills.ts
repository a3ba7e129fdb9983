import { key } from '../common/key';
import { WRITE_CALL_IDS } from '../model/script';
import type { BatchPlan, SuiteRun } from './suite';
import type { Variant } from './variants';
import type { McpLane } from './world';

/**
 * Kills a lane's MCP servers for the runs of a batch whose tools are over MCP. Each server parks
 * a write the first time the tracker accepts it; once every run that uses the server is parked (there
 * or at its worker kill) or has ended, no other request can be in flight to it, so a SIGKILL fails
 * exactly the parked calls, whatever the timing. Then the server starts again on its port.
 */
export class McpKills {
  /** Which run a parked request belongs to, by the call's key. */
  private readonly owners = new Map<string, string>();
  private readonly runs: SuiteRun<Variant>[];

  constructor(
    private readonly lane: McpLane,
    batch: SuiteRun<Variant>[],
    private readonly counter: { mcpKills: number; mcpWrites: number },
  ) {
    this.runs = batch.filter((s) => s.row.mcp);
    for (const s of this.runs) for (const id of WRITE_CALL_IDS) this.owners.set(key(s.runId, id), s.workflowId);
  }

  async poll({ isParked, ended }: Parameters<NonNullable<BatchPlan['poll']>>[0]): Promise<void> {
    for (const tracker of ['keyed', 'keyless'] as const) {
      const host = this.lane.hosts[tracker];
      if (host.parked.size === 0) continue;
      const atMcp = new Set<string>();
      for (const [k, detail] of host.parked) {
        const owner = this.owners.get(k);
        if (!owner) throw new Error(`MCP server ${host.name} parked a call of no run in this batch: ${detail}`);
        atMcp.add(owner);
      }
      const moving = this.runs.some(
        (s) =>
          s.row.tracker === tracker && !ended.has(s.workflowId) && !isParked(s.workflowId) && !atMcp.has(s.workflowId),
      );
      if (moving) continue;
      this.counter.mcpWrites += host.parked.size;
      await host.restart();
      this.counter.mcpKills += 1;
    }
  }
}
