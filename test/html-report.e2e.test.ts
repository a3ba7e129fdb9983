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
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** The test cases of a JUnit XML file, as a CI server reads them: name, and the failure's text if any. */
function junitCases(xml: string): Array<{ name: string; failure?: string }> {
  const parsed = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (n) => ['testsuite', 'testcase'].includes(n),
  }).parse(xml) as {
    testsuites: { testsuite: Array<{ testcase?: Array<{ name: string; failure?: { '#text': string } }> }> };
  };
  return parsed.testsuites.testsuite.flatMap((suite) =>
    (suite.testcase ?? []).map((c) => ({ name: c.name, ...(c.failure ? { failure: c.failure['#text'] } : {}) })),
  );
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'html-report-'));

test('npm run sweep --html writes one page; in Chromium it loads without errors, has a cell per scenario, and a click shows the scenario', async () => {
  const html = path.join(dir, 'report.html');
  const json = path.join(dir, 'report.json');
  const junit = path.join(dir, 'report.xml');
  // The same sweep reports as JUnit XML and as GitHub annotations, and fails on its duplicates: exit status 1.
  const sweep = await promisify(execFile)(
    process.execPath,
    [
      ...[
        '--import',
        'tsx',
        'agent-sweep/crash-sweep.ts',
        '--variant',
        'reply',
        '--once',
        '--html',
        html,
        '--json',
        json,
      ],
      ...['--reporter', `table,github,junit=${junit}`, '--fail-on', 'dups'],
    ],
    { cwd: ROOT },
  ).then(
    () => ({ code: 0, stdout: '', stderr: '' }),
    (err: { code: number; stdout: string; stderr: string }) => err,
  );
  const data = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
  expect(sweep.code).toBe(1);
  expect(sweep.stderr).toContain('damage: reply (save after the reply): dups 6');
  expect(sweep.stdout).toMatch(/^save after the reply +25 +0 +6 +6 /m);
  expect(sweep.stdout).toMatch(
    /^::error title=crash sweep%3A save after the reply::dups 6%0Aagain: npm run sweep -- /m,
  );
  // A JUnit reader's view: well-formed XML, a case per scenario, a failure for each that made a duplicate.
  const xml = readFileSync(junit, 'utf8');
  expect(XMLValidator.validate(xml)).toBe(true);
  const cases = junitCases(xml);
  expect(cases.map((c) => c.name)).toEqual(data.scenarios.map((s) => s.id));
  const withDups = data.scenarios.filter((s) => (s.outcome?.dups ?? 0) > 0).map((s) => s.id);
  expect(cases.filter((c) => c.failure).map((c) => c.name)).toEqual(withDups);
  expect(withDups.length).toBe(6);
  expect(cases.find((c) => c.failure)?.failure).toMatch(
    /^dups 1\nagain: npm run sweep -- --variant reply --scenario \d+ --keep-server$/,
  );
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
