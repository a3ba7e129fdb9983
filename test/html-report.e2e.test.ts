// The sweep's HTML report, opened offline in a real headless Chromium (Debian's `chromium`).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { htmlReport, verdict } from '../sweep/report/html';
import type { JsonReport } from '../sweep/report/json';
import { checkReport } from '../sweep/report/screenshot';
import { ROOT } from './helpers/processes';

const dir = mkdtempSync(path.join(os.tmpdir(), 'html-report-'));

test('npm run sweep --html writes one page; in Chromium it loads without errors, has a cell per scenario, and a click shows the scenario', async () => {
  const html = path.join(dir, 'report.html');
  const json = path.join(dir, 'report.json');
  await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'sweep/cli/crash-sweep.ts', '--variant', 'reply', '--once', '--html', html, '--json', json],
    { cwd: ROOT },
  );
  const data = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
  // Self-contained: nothing is fetched from anywhere.
  expect(readFileSync(html, 'utf8')).not.toMatch(/<(script|link|img)[^>]+(src|href)=/);

  const png = path.join(dir, 'report.png');
  const check = await checkReport(html, png);
  expect(check.errors).toEqual([]);
  expect(check.cells).toBe(data.scenarios.length);
  expect(check.detail).toContain(data.scenarios[0].workflowId);
  expect(check.detail).toContain('npm run sweep -- --variant reply --scenario 1');
  expect(existsSync(png) && statSync(png).size).toBeGreaterThan(10_000);
}, 180_000);

test('the second pass is drawn as a matrix: each scenario at its (first point, restart point), coloured by its worst outcome', () => {
  const scenario = (
    pass: 'once' | 'twice',
    kills: number[],
    outcome: { dups?: number; missing?: number; asks?: number } | null,
    error?: string,
  ) => ({
    id: `keys ${pass} ${kills.join('.')}`,
    row: 'keys',
    pass,
    kills,
    runId: 'r',
    workflowId: `wf-${kills.join('-')}`,
    taskQueue: null,
    landed: [],
    expected: [],
    restartPoints: [],
    outcome: outcome && {
      issues: 2,
      comments: 1,
      dups: 0,
      missing: 0,
      asks: 0,
      modelCalls: 3,
      callsExtra: 0,
      approvals: 0,
      ...outcome,
    },
    stuck: null,
    end: null,
    otherEnd: null,
    error: error ?? null,
  });
  const scenarios = [
    scenario('once', [1], {}),
    scenario('once', [2], { asks: 1 }),
    scenario('twice', [1, 2], { dups: 1 }),
    scenario('twice', [2, 1], { missing: 1, dups: 1 }),
    scenario('twice', [2, 3], null, 'did not land'),
  ];
  const row = {
    name: 'keys',
    label: '+ idempotency keys',
    once: 2,
    twice: 3,
    withDups: 2,
    dups: 2,
    missing: 1,
    asks: 1,
    callsExtra: 0,
    approvalsExtra: 0,
    errors: 1,
  };
  const data = {
    rows: [row],
    points: {
      keys: [
        { name: 'tool.started', detail: 'a' },
        { name: 'tracker.accepted', detail: 'a' },
      ],
    },
    seconds: 1,
    scenarios,
    reruns: [],
  } as unknown as JsonReport;
  expect(scenarios.map((s) => verdict(s as JsonReport['scenarios'][number]))).toEqual([
    'clean',
    'asked',
    'dup',
    'missing',
    'error',
  ]);

  const page = htmlReport(data);
  expect(page.match(/class="cell (clean|asked|dup|missing|error)" data-i=/g)).toHaveLength(scenarios.length);
  const matrix = page.slice(page.indexOf('class="matrix"'));
  const rows = matrix
    .split('<tr>')
    .slice(2)
    .map((r) => (r.match(/<td>(<button class="cell (\w+)")?/g) ?? []).map((c) => c.match(/cell (\w+)/)?.[1] ?? '-'));
  // Row 1: restart point 2 duplicated; row 2: restart point 1 missing, 3 an error.
  expect(rows).toEqual([
    ['-', 'dup', '-'],
    ['missing', '-', 'error'],
  ]);
});
