// The agent loop's row of the golden table, first pass (every point of a clean run, killed once). The whole table (every variant, killed once
// and twice) takes about 30 minutes here and runs in `npm run test:full`, as does the same row swept
// with both cores busy (test/sweep.loaded.full.test.ts).
// A table's cells are parted by two spaces or more (a one-row table has a narrower first column).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { agentSuite } from '../agent-sweep/agent-suite';
import { formatTable } from '../sweep/report/table';
import { runSweep } from '../sweep/engine/passes';
import { selectRows } from '../agent-sweep/rows';
import { ROOT } from './helpers/processes';
import { goldenRow, tableCells } from './helpers/golden-rows';

// The first pass's table, as `npm run sweep` prints it.
const GOLDEN = path.join(ROOT, 'testdata', 'sweep-once.txt');

describe('crash sweep of the agent loop', () => {
  test('every kill lands on its point, every history is clean, and the row equals the golden row', async () => {
    const report = await runSweep({ suite: agentSuite(selectRows('agent')), twice: false });
    expect(report.scenarios.filter((s) => s.error).map((s) => `${s.id}: ${s.error}`)).toEqual([]);
    for (const s of report.scenarios)
      expect(s.landed.map((p) => [p.name, p.detail])).toEqual(s.expected.map((p) => [p.name, p.detail]));
    const [header, row] = tableCells(formatTable(report.rows));
    expect(header).toEqual(tableCells(readFileSync(GOLDEN, 'utf8'))[0].slice(0, header.length));
    expect(row).toEqual(goldenRow(GOLDEN, header, 'agent loop, keyed tracker'));
  }, 600_000);

  test('npm run sweep prints only the table on stdout, of the first pass unless --full, and a last line that sums it up', async () => {
    // One scenario (the first point) is enough to see what goes to stdout, and keeps npm test short.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'agent-sweep/crash-sweep.ts', '--variant', 'agent', '--scenario', '1'],
      { cwd: ROOT },
    );
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'variant                    once  twice  with dups  dups  missing  orphans  asks  calls+  appr+',
    );
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^agent loop, keyed tracker +1 +0 +0 +0 +0 +0 +0 +\d+ +0$/),
      '',
      'crash sweep: 1 scenario in 1 row: passed (exit status 0)',
    ]);
  }, 300_000);
});
