// The sweep on a machine that is busy with other work: two processes keep both cores busy while the
// agent loop's rows where the worker dies (but the MCP ones) and the slow receiver's four rows are
// swept (their first pass). Live tasks are slower, kills land later and retries come later to the
// slow trackers; a scenario that errs for it runs again (`--reruns`), and the rows must equal the
// golden table's, with no error left. Run by `npm run test:full` and by CI.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { agentSuite } from '../agent-sweep/agent-suite';
import { formatTable } from '../sweep/report/table';
import { runSweep } from '../sweep/engine/passes';
import { selectRows } from '../agent-sweep/rows';
import { formatReruns } from '../sweep/report/json';
import { ROOT } from './helpers/processes';
import { goldenRow, tableCells } from './helpers/golden-rows';

const ROWS = [
  'agent',
  'agent-keyless-lookup',
  'agent-keyless',
  'agent-mid-call',
  'agent-approval',
  'agent-slow-unclaimed',
  'agent-slow',
  'agent-slow-keyless-silent',
  'agent-slow-keyless',
].join(',');
const GOLDEN = path.join(ROOT, 'testdata', 'sweep-once.txt');

test("with both cores busy, the agent loop's rows where the worker dies and the slow receiver's rows equal the golden rows, with no error left", async () => {
  const hogs: ChildProcess[] = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  try {
    const report = await runSweep({ suite: agentSuite(selectRows(ROWS)), twice: false });
    // What ran again, and why: not a failure, but worth a look when it grows.
    if (report.reruns.length > 0) console.log(formatReruns(report.reruns));
    expect(report.scenarios.filter((s) => s.error).map((s) => `${s.id}: ${s.error}`)).toEqual([]);
    const [header, ...rows] = tableCells(formatTable(report.rows));
    expect(rows).toEqual(rows.map((r) => goldenRow(GOLDEN, header, r[0])));
    expect(rows.map((r) => r[0])).toEqual(selectRows(ROWS).map((r) => r.label));
  } finally {
    for (const h of hogs) h.kill('SIGKILL');
  }
}, 900_000);
