// The agent loop's row of the golden table, swept while another process keeps one core busy. The
// whole table (every variant) takes about 27 minutes here and runs in `npm run test:full`.
// A table's cells are parted by two spaces or more (a one-row table has a narrower first column).
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { agentSuite } from '../sweep/agent/agent-suite';
import { formatTable } from '../sweep/report/table';
import { runSweep } from '../sweep/engine/passes';
import { selectRows } from '../sweep/agent/rows';
import { ROOT } from './helpers/processes';

const cells = (table: string) =>
  table
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {2,}/));
const golden = cells(readFileSync(path.join(ROOT, 'testdata', 'sweep.txt'), 'utf8'));

describe('crash sweep of the agent loop, on a busy machine', () => {
  test('every kill lands on its point, every history is clean, and the row equals the golden row', async () => {
    // A busy machine makes every task slower; the sweep's timeouts and its audit must keep the
    // counts the same, or fail the scenario, never print another number.
    const hog = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    try {
      const report = await runSweep({ suite: agentSuite(selectRows('agent')) });
      expect(report.scenarios.filter((s) => s.error).map((s) => `${s.id}: ${s.error}`)).toEqual([]);
      for (const s of report.scenarios)
        expect(s.landed.map((p) => [p.name, p.detail])).toEqual(s.expected.map((p) => [p.name, p.detail]));
      const [header, row] = cells(formatTable(report.rows));
      expect(header).toEqual(golden[0]);
      expect(row).toEqual(golden.find((r) => r[0] === 'agent loop, keyed tracker'));
    } finally {
      hog.kill('SIGKILL');
    }
  }, 600_000);

  test('npm run sweep prints only the table on stdout, of the first pass unless --full', async () => {
    // One scenario (the first point) is enough to see what goes to stdout, and keeps npm test short.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'sweep/cli/crash-sweep.ts', '--variant', 'agent', '--scenario', '1'],
      { cwd: ROOT },
    );
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'variant                    once  twice  with dups  dups  missing  orphans  asks  calls+  appr+',
    );
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^agent loop, keyed tracker +1 +0 +0 +0 +0 +0 +0 +\d+ +0$/)]);
  }, 300_000);
});
