// `npm run save-histories [-- --variant NAME,...]`: histories of every row (or of those named), each with a worker killed mid-run, for the replay test.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { runMain } from '../common/cli';
import { connectTemporal } from '../common/temporal-connection';
import { agentSuite } from './agent-suite';
import { formatTable } from '../sweep/report/table';
import { runSweep } from '../sweep/engine/passes';
import type { Scenario } from '../sweep/engine/scenario';
import { selectRows } from './rows';
import { serverDeathOf } from '../sweep/faults';

/**
 * Where the histories of today's code go. Its sibling folders keep those of older code, frozen, so
 * that a `patched()` change stays tested against the runs it was made for; `test/replay.test.ts`
 * replays every one of them against the current code.
 */
export const HISTORIES_DIR = path.join(__dirname, '..', 'testdata', 'histories', 'current');

/** The points whose kill leaves the most to settle: a write in doubt, a question, an approval, a turn. */
const TELLING = [
  'tracker.accepted',
  'mcp.accepted',
  'approval.pending',
  'question.asked',
  'turn.returned',
  'tool.started',
];

/**
 * `npm run save-histories [-- --variant NAME,...]`: runs the first pass of the sweep for every variant
 * (or the ones named, whose histories alone are replaced), and saves the history
 * of two of its scenarios per variant (killed at the first write in doubt, or the nearest telling
 * point, and at the middle of the run) into `testdata/histories/current/`. Run it after a change that is meant
 * to alter what the workflows record; `test/replay.test.ts` then guards the change that is not.
 */
async function main(): Promise<void> {
  // `--variant a,b`: only these rows' histories are made again; the others' stay as they are.
  const at = process.argv.indexOf('--variant');
  const only = at >= 0 ? process.argv[at + 1] : undefined;
  if (at >= 0 && !only) throw new Error('usage: npm run save-histories [-- --variant NAME,...]');
  const rows = selectRows(only);
  const report = await runSweep({
    suite: agentSuite(rows),
    twice: false,
    keepServer: true,
    progress: (l) => console.error(l),
  });
  try {
    // The same pass `npm run sweep` makes by default: its table is worth seeing (and keeping, in testdata/sweep-once.txt).
    console.log(formatTable(report.firstPass));
    console.error(`${report.scenarios.length} scenarios in ${report.seconds.toFixed(1)} s`);
    const bad = report.scenarios.filter((s) => s.error);
    if (bad.length > 0)
      throw new Error(`${bad.length} scenario(s) failed; no history saved: ${bad[0].id}: ${bad[0].error}`);
    if (!only) rmSync(HISTORIES_DIR, { recursive: true, force: true });
    mkdirSync(HISTORIES_DIR, { recursive: true });
    const names = new Set(rows.map((r) => r.name));
    for (const f of readdirSync(HISTORIES_DIR))
      if (names.has(f.replace(/-\d+\.binpb$/, ''))) rmSync(path.join(HISTORIES_DIR, f));
    // Binary protobuf: the SDK's JSON reader (`historyFromJSON`) trips over the two copies of
    // protobufjs that npm installs beside @temporalio/common and @temporalio/proto.
    const { Client } = await import('@temporalio/client');
    const connection = await connectTemporal(report.kept!.address);
    const client = new Client({ connection });
    for (const [variant, points] of Object.entries(report.points)) {
      const ofVariant = report.scenarios.filter((s) => s.row.name === variant);
      const telling = TELLING.map((name) => points.findIndex((p) => p.name === name)).find((i) => i >= 0) ?? 0;
      const picks = new Set([telling + 1, Math.ceil(points.length / 2)]);
      for (const index of picks) {
        const s = ofVariant.find((x: Scenario) => x.kills[0].index === index)!;
        // A row whose server dies ran on a server of its own, kept up with the sweep's (`keepServer`).
        const history = await (serverDeathOf(s.row) ? s.client! : client).workflow
          .getHandle(s.workflowId)
          .fetchHistory();
        writeFileSync(
          path.join(HISTORIES_DIR, `${variant}-${index}.binpb`),
          temporal.api.history.v1.History.encode(history).finish(),
        );
      }
    }
    await connection.close();
    console.error(
      `saved ${readdirSync(HISTORIES_DIR).length} histories to ${path.relative(process.cwd(), HISTORIES_DIR)}`,
    );
  } finally {
    await report.kept?.stop();
  }
}

runMain(main);
