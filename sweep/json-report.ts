import type { SweepReport } from './run-sweep';
import type { Scenario } from './scenario';

/**
 * The command that runs one scenario again, alone (its kill indexes are its label: `3`, `3.7`), with
 * its server kept for a look in the Web UI unless the sweep ran on an existing server.
 */
export function rerunCommand(variant: string, kills: number[], existingServer = false): string {
  const command = `npm run sweep -- --variant ${variant} --scenario ${kills.join('.')}`;
  return existingServer ? command : `${command} --keep-server`;
}

const killIndexes = (s: Scenario) => s.kills.map((k) => k.index ?? 0);

/** The sweep's findings as data (`--json`), and what the HTML report draws. */
export function jsonReport(report: SweepReport, existingServer: boolean) {
  const scenarios = report.scenarios.map((s) => {
    const o = s.outcome;
    const notable = !!s.error || !o || o.dups > 0 || o.missing > 0 || o.asks > 0;
    return {
      id: s.id,
      variant: s.variant.name,
      pass: s.pass,
      /** The kill indexes: `[N]` once, `[N, M]` twice. */
      kills: killIndexes(s),
      runId: s.runId,
      workflowId: s.workflowId,
      taskQueue: s.taskQueue ?? null,
      killedAt: s.landed,
      expected: s.expected,
      restartPoints: s.finalPoints,
      outcome: o ?? null,
      error: s.error ?? null,
      ...(notable ? { rerun: rerunCommand(s.variant.name, killIndexes(s), existingServer) } : {}),
    };
  });
  return { rows: report.rows, points: report.points, seconds: report.seconds, scenarios };
}

export type JsonReport = ReturnType<typeof jsonReport>;
export type JsonScenario = JsonReport['scenarios'][number];
