// One sweep split between two processes on one Temporal server (`--shard 1/2`, `--shard 2/2`), their
// reports joined by `crash-sweep merge`: the table, the JSON and the page of a single sweep.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { devServerExecutable } from '../common/temporal-cli';
import type { JsonReport } from '../sweep/report/json';
import { ROOT } from './helpers/processes';

const run = promisify(execFile);
const crashSweep = (args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'sweep/cli/crash-sweep.ts', ...args], { cwd: ROOT });
const NAIVE = path.join('examples', 'order', 'naive.config.ts');
/** The naive order's table, the first pass (testdata/README.md). */
const GOLDEN = readFileSync(path.join(ROOT, 'testdata', 'order-naive.txt'), 'utf8');

describe('a sweep in shards, merged', () => {
  test("two shards on one server, killed once, merge into the single sweep's table, JSON and page, with every scenario once", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sweep-shards-'));
    const server = await TestWorkflowEnvironment.createLocal({
      server: { executable: devServerExecutable(), log: { format: 'pretty', level: 'error' } },
    });
    try {
      const sweep = (json: string, ...args: string[]) =>
        crashSweep(['--config', NAIVE, '--address', server.address, '--json', path.join(dir, json), ...args]);
      // The two shards side by side, as two CI jobs would run them, and the single sweep beside them.
      const [single, one, two] = await Promise.all([
        sweep('single.json'),
        sweep('1.json', '--shard', '1/2'),
        sweep('2.json', '--shard', '2/2'),
      ]);
      // The table, and a last line: the scenarios, the rows and the verdict (the control shows its damage: passed).
      expect(single.stdout).toBe(`${GOLDEN}\ncrash sweep: 14 scenarios in 1 row: passed (exit status 0)\n`);
      // The naive order is a control (it must show damage): the whole sweep judges it, a shard cannot.
      expect(single.stderr).toContain('controls (rows that must show damage): order-naive dups 6');
      expect(one.stderr + two.stderr).not.toContain('controls');
      expect(one.stderr).toMatch(/shard 1\/2: 7 of the first pass's 14 scenarios/);
      expect(two.stderr).toMatch(/shard 2\/2: 7 of the first pass's 14 scenarios/);
      // Neither shard's table is the whole one.
      expect([one.stdout, two.stdout]).not.toContain(GOLDEN);

      const mergedJson = path.join(dir, 'merged.json');
      const mergedHtml = path.join(dir, 'merged.html');
      const merged = await crashSweep([
        'merge',
        path.join(dir, '2.json'),
        path.join(dir, '1.json'),
        '--json',
        mergedJson,
        '--html',
        mergedHtml,
      ]);
      expect(merged.stdout).toBe(single.stdout);
      expect(merged.stderr).toContain('controls (rows that must show damage): order-naive dups 6');
      const report = JSON.parse(readFileSync(mergedJson, 'utf8')) as JsonReport;
      const parts = [1, 2].map((k) => JSON.parse(readFileSync(path.join(dir, `${k}.json`), 'utf8')) as JsonReport);
      // Every scenario of the two shards once, in a single sweep's order: the first pass, then the second, by kill indexes.
      expect(report.scenarios.map((s) => s.id).sort()).toEqual(
        parts
          .flatMap((p) => p.scenarios.map((s) => s.id))
          .sort()
          .filter((id, i, all) => all.indexOf(id) === i),
      );
      expect(report.scenarios).toHaveLength(parts[0].scenarios.length + parts[1].scenarios.length);
      // The single sweep's report, but for what names each run (its ids, its task queue) and the time taken.
      const whole = JSON.parse(readFileSync(path.join(dir, 'single.json'), 'utf8')) as JsonReport;
      const runless = (r: JsonReport) => ({
        ...r,
        seconds: 0,
        scenarios: r.scenarios.map((s) => ({ ...s, runId: '', workflowId: '', taskQueue: '' })),
      });
      expect(report.shard).toBeNull();
      expect(runless(report)).toEqual(runless(whole));
      const html = readFileSync(mergedHtml, 'utf8');
      expect(html).toContain(`${report.scenarios.length} scenarios in`);
      expect(html).toContain(report.scenarios[report.scenarios.length - 1].workflowId);

      // What is not the whole of one split sweep is refused as bad input (exit status 2), naming why, and writes nothing.
      const refused = async (args: string[]) =>
        crashSweep(['merge', ...args]).then(
          () => null,
          (err: { code: number; stderr: string }) => `${err.code}: ${err.stderr.trim()}`,
        );
      const other = path.join(dir, 'other.json');
      writeFileSync(other, JSON.stringify({ ...parts[1], points: { 'order-naive': [] } }));
      expect(await refused([path.join(dir, '1.json')])).toBe('2: shard(s) 2/2 missing: merge needs all 2');
      expect(await refused([path.join(dir, '1.json'), other])).toMatch(
        /^2: the clean run of order-naive reached other points in .*other\.json than in .*1\.json/,
      );
      expect(await refused([mergedJson])).toMatch(/is the report of a whole sweep, not of a shard/);
      expect(await refused([])).toMatch(/^2: merge needs the JSON report of every shard/);
      // Shards whose control shows no damage (the duplicates taken out of their rows): the merged sweep
      // cannot judge (exit status 3), with the reason, after printing its table.
      const blind = parts.map((p, i) => {
        const file = path.join(dir, `blind-${i + 1}.json`);
        writeFileSync(file, JSON.stringify({ ...p, rows: p.rows.map((r) => ({ ...r, withDups: 0, dups: 0 })) }));
        return file;
      });
      expect(await refused(blind)).toMatch(
        /^3: [^]*^the sweep could not judge: control order-naive \(order, naive\) showed no damage: .* cannot see damage/m,
      );
    } finally {
      await server.teardown();
    }
  }, 240_000);

  test('--shard is refused when it is not K/N, or with --scenario, before anything starts', async () => {
    for (const [args, message] of [
      [['--shard', '3/2'], /bad --shard "3\/2": K\/N/],
      [['--shard', '0/2'], /bad --shard "0\/2"/],
      [['--shard', 'half'], /bad --shard "half"/],
      [['--scenario', '4', '--shard', '1/2'], /--scenario runs one scenario: it cannot be split/],
    ] as const) {
      const failure = await crashSweep(['--config', NAIVE, ...args]).then(
        () => null,
        (err: { code: number; stderr: string }) => err,
      );
      expect([failure?.code, failure?.stderr]).toEqual([2, expect.stringMatching(message)]);
    }
  });
});
