// The sweep's report for programs (`--json`), and the command that runs one scenario again.
import type { SweepReport } from '../engine/passes';
import { summarizeErrors, type Rerun } from '../engine/reruns';
import type { RanScenario } from '../engine/scenario';
import { isNotable } from '../judge/columns';
import { describeStuck } from '../judge/stuck';

/** How a sweep was run, for the command that runs one of its scenarios again. */
export interface RerunOptions {
  /** It ran on an existing server: no dev server to keep. */
  existingServer?: boolean;
  /** It swept a config file. */
  config?: string;
  /** The command that started it where it ran: `npx crash-sweep` in a user's project. Default `npm run sweep --`, this repository's. */
  command?: string;
}

/**
 * The command that runs one scenario again, alone (its kill indexes are its label: `3`, `3.7`), with
 * its server kept for a look in the Web UI unless the sweep ran on an existing server.
 */
export function rerunCommand(variant: string, kills: number[], options: RerunOptions = {}): string {
  const config = options.config ? ` --config ${options.config}` : '';
  const command = `${options.command ?? 'npm run sweep --'}${config} --variant ${variant} --scenario ${kills.join('.')}`;
  return options.existingServer ? command : `${command} --keep-server`;
}

const killIndexes = (s: RanScenario) => s.kills.map((k) => k.index ?? 0);

/** The sweep's findings as data (`--json`), and what the HTML report draws. */
export function jsonReport(report: SweepReport, rerun: RerunOptions = {}) {
  const scenarios = report.scenarios.map((s) => {
    const o = s.outcome;
    const notable = isNotable(s);
    return {
      id: s.id,
      row: s.row.name,
      pass: s.pass,
      /** The kill indexes: `[N]` once, `[N, M]` twice. */
      kills: killIndexes(s),
      runId: s.runId,
      workflowId: s.workflowId,
      taskQueue: s.taskQueue ?? null,
      landed: s.landed,
      expected: s.expected,
      restartPoints: s.finalPoints,
      outcome: o ?? null,
      /** Why its run could never finish, with `text`, the line people read. */
      stuck: s.stuck ? { ...s.stuck, text: describeStuck(s.stuck) } : null,
      /** What was done to its run at its kills (a row with an operation: `reset to event 9 (last-task)`, `failed for its retry policy`). */
      ...(s.operations ? { operations: s.operations } : {}),
      /** How its run ended (`completed`, or `failed: ...`), and the clean run's end when it ended otherwise. */
      end: s.end ?? null,
      otherEnd: s.otherEnd ?? null,
      error: s.error ?? null,
      ...(notable ? { rerun: rerunCommand(s.row.name, killIndexes(s), rerun) } : {}),
    };
  });
  return {
    rows: report.rows,
    points: report.points,
    seconds: report.seconds,
    /** What the suite says of how it ran its rows (a config's: its activities' timeouts, capped). */
    notes: report.notes,
    rerun,
    /** The share this report holds, if the sweep was split (`--shard K/N`): `crash-sweep merge` joins the shares. */
    shard: report.shard,
    scenarios,
    reruns: report.reruns,
  };
}

/**
 * The runs that erred and were run again, for people: how many, why, and that the table counts only
 * clean runs. Each scenario's id names it; the errors are listed as the sweep met them.
 */
export function formatReruns(reruns: readonly Rerun[]): string {
  const scenarios = new Set(reruns.map((r) => r.id)).size;
  return [
    `re-ran ${scenarios} scenario(s) that erred (${reruns.length} run(s) did not count: ${summarizeErrors(reruns.map((r) => r.error))}); the table counts only runs that were clean:`,
    ...reruns.slice(0, 20).map((r) => `  ${r.id}, run ${r.attempt}: ${r.error}`),
    ...(reruns.length > 20 ? [`  and ${reruns.length - 20} more (--json lists them all)`] : []),
  ].join('\n');
}

export type JsonReport = ReturnType<typeof jsonReport>;
export type JsonScenario = JsonReport['scenarios'][number];
