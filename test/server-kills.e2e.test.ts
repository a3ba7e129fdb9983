// The Temporal server killed by SIGKILL and started again on its database file and port: first the server alone, then the sweep's two rows on it.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { agentSuite } from '../agent-sweep/agent-suite';
import { runSweep } from '../sweep/engine/passes';
import { KillableServerHost } from '../sweep/hosts/killable-server-host';
import { selectRows } from '../agent-sweep/rows';

describe('a Temporal dev server killed and restarted on its database file', () => {
  test('a run started before the kill is still there after it, at the same address', async () => {
    const server = await KillableServerHost.start(mkdtempSync(path.join(os.tmpdir(), 'server-kills-')), 'test');
    try {
      const address = server.address;
      const pid = server.pid;
      await server.client.workflow.start('noSuchWorkflow', {
        taskQueue: 'nobody-polls',
        workflowId: 'outlives-the-kill',
      });
      const { cpuSeconds } = await import('../sweep/engine/timings');
      const beforeKill = cpuSeconds(pid!)!;
      expect(beforeKill).toBeGreaterThan(0);
      await server.restart();
      expect([server.address, server.pid === pid, server.kills]).toEqual([address, false, 1]);
      // The killed process's CPU still counts in the sweep's report, beside the new one's.
      expect(server.cpuSeconds()).toBeGreaterThanOrEqual(beforeKill);
      const described = await server.client.workflow.getHandle('outlives-the-kill').describe();
      expect(described.status.name).toBe('RUNNING');
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('the sweep kills the Temporal server at a point, and again during the recovery', () => {
  test('killed after the tracker accepted each issue: the surviving worker, or a fresh one, finishes with nothing lost or repeated', async () => {
    // 8: tracker.accepted of the first issue (after the tools' listing and the first turn); then the recovery's 4th point. The surviving worker goes on
    // from the point (tool.returned, workflow.decided, tool.started, then the second issue's
    // tracker.accepted); a fresh one first runs the dead worker's call again (tool.started, tracker.accepted,
    // tool.returned, then workflow.decided), which the keyed tracker answers from its records.
    const report = await runSweep({
      suite: agentSuite(selectRows('agent-server,agent-server-worker')),
      scenario: '8.4',
      // No re-run: one would kill and launch more than the counts below.
      reruns: 0,
    });
    expect(report.scenarios.filter((s) => s.error).map((s) => `${s.id}: ${s.error}`)).toEqual([]);
    const twice = report.scenarios.filter((s) => s.pass === 'twice');
    expect(twice.map((s) => [s.row.name, s.landed.map((p) => `${p.name} ${p.detail}`)])).toEqual([
      ['agent-server', ['tracker.accepted create_issue call_create_1', 'tracker.accepted create_issue call_create_2']],
      ['agent-server-worker', ['tracker.accepted create_issue call_create_1', 'workflow.decided scheduleActivity']],
    ]);
    for (const row of report.rows)
      expect(row).toMatchObject({ once: 1, twice: 1, dups: 0, missing: 0, orphans: 0, asks: 0, errors: 0 });
    // The worker that lived through the kills paid for no model call again.
    expect(report.rows[0].callsExtra).toBe(0);
    // One kill per round of each batch: once (2 batches x 1 round), twice (2 x 2).
    expect(report.temporalKills).toBe(6);
    // The surviving worker was never replaced: one generation per batch of its row, against one per
    // kill and one to finish in the other row (clean runs 1 + 1, once 1 + 2, twice 1 + 3).
    expect(report.generations).toBe(2 + (1 + 2) + (1 + 3));
  }, 180_000);
});
