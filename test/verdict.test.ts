// A sweep's verdict and exit status (sweep/judge/verdict.ts), and the reporters a CI reads (sweep/report/).
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { judgeControls } from '../sweep/judge/controls';
import { emptyRow, type Row } from '../sweep/judge/counting';
import { DEFAULT_FAIL_ON, EXIT_STATUS, formatVerdict, judgeSweep, parseFailOn } from '../sweep/judge/verdict';
import { githubAnnotations } from '../sweep/report/github';
import type { JsonReport, JsonScenario } from '../sweep/report/json';
import { junitXml } from '../sweep/report/junit';
import { reportersNamed } from '../sweep/report/reporter';

const row = (name: string, counts: Partial<Row>, control = false): Row => ({
  ...emptyRow({ name, label: `the ${name} row`, control }),
  once: 2,
  ...counts,
});

describe('the verdict', () => {
  test('damage in a fail-on column of a row that is not a control is exit status 1; a control is never damage', () => {
    const rows = [row('naive', { dups: 6, withDups: 6 }, true), row('fixed', {}), row('asks', { asks: 3 })];
    expect(judgeSweep(rows, judgeControls(rows), DEFAULT_FAIL_ON)).toEqual({
      status: EXIT_STATUS.passed,
      damaged: [],
      harness: [],
    });
    // Questions to a person fail the sweep only when asked to.
    const strict = judgeSweep(rows, judgeControls(rows), parseFailOn(['damage']));
    expect(strict).toMatchObject({ status: EXIT_STATUS.damage, damaged: [{ name: 'asks', damage: ['asks 3'] }] });
    expect(formatVerdict(strict, parseFailOn(['damage']))).toEqual(['damage: asks (the asks row): asks 3']);
    const dups = [...rows, row('keyless', { dups: 2, stuck: 1, otherEnds: 1 })];
    expect(judgeSweep(dups, null, parseFailOn(['dups', 'stuck'])).damaged).toEqual([
      { name: 'keyless', label: 'the keyless row', damage: ['dups 2', 'stuck 1'] },
    ]);
    expect(judgeSweep(dups, null, parseFailOn(['none'])).status).toBe(EXIT_STATUS.passed);
  });

  test('a scenario that erred, or a control that showed no damage, is exit status 3, before any damage', () => {
    const rows = [row('blind', {}, true), row('keyless', { dups: 2, errors: 1 })];
    const verdict = judgeSweep(rows, judgeControls(rows), DEFAULT_FAIL_ON);
    expect(verdict.status).toBe(EXIT_STATUS.harness);
    expect(verdict.harness).toEqual([
      '1 scenario(s) erred (keyless 1): the table does not count them',
      expect.stringMatching(/^control blind \(the blind row\) showed no damage/),
    ]);
  });

  test('--fail-on takes damage columns, damage or none; anything else is refused with the columns', () => {
    expect(parseFailOn(['dups', 'other-ends'])).toEqual(['dups', 'other-ends']);
    expect(parseFailOn(['none'])).toEqual([]);
    expect(parseFailOn(['damage'])).toContain('asks');
    expect(DEFAULT_FAIL_ON).not.toContain('asks');
    expect(() => parseFailOn(['dupes'])).toThrow(
      /bad --fail-on "dupes": a comma list of dups, missing, orphans, asks, diverged/,
    );
    expect(() => parseFailOn([])).toThrow(/bad --fail-on/);
  });
});

/** A made-up report: the rows, and scenarios of each. */
function report(rows: Row[], scenarios: Array<Partial<JsonScenario> & Pick<JsonScenario, 'id' | 'row'>>): JsonReport {
  return {
    rows,
    points: {},
    seconds: 12.5,
    notes: [],
    rerun: {},
    shard: null,
    reruns: [],
    scenarios: scenarios.map((s) => ({
      pass: 'once' as const,
      kills: [1],
      runId: 'r',
      workflowId: 'w',
      taskQueue: null,
      landed: [],
      expected: [],
      restartPoints: [],
      outcome: null,
      stuck: null,
      end: 'completed',
      otherEnd: null,
      error: null,
      ...s,
    })),
  };
}

const clean = { dups: 0, diverged: 0, missing: 0, orphans: 0, halfDone: 0, asks: 0, calls: 3, approvals: 0 };

describe('JUnit XML', () => {
  test('a case per scenario, failed for its damage (not a control) with the command that runs it again, in error when it erred', () => {
    const rows = [row('naive', { dups: 1 }, true), row('keyless', { dups: 1, errors: 1 }), row('blind', {}, true)];
    const data = report(rows, [
      { id: 'naive once 1', row: 'naive', outcome: { ...clean, dups: 1 }, rerun: 'again naive' },
      { id: 'keyless once 1', row: 'keyless', outcome: { ...clean, dups: 1 }, rerun: 'again <1> & "2"' },
      { id: 'keyless once 2', row: 'keyless', outcome: null, error: 'kill 1 never landed', rerun: 'again 2' },
      { id: 'keyless once 3', row: 'keyless', outcome: clean },
      { id: 'blind once 1', row: 'blind', outcome: clean },
    ]);
    const verdict = judgeSweep(rows, judgeControls(rows), DEFAULT_FAIL_ON);
    const xml = junitXml(data, verdict, DEFAULT_FAIL_ON);
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
    expect(parsed.testsuites).toMatchObject({ tests: '7', failures: '2', errors: '1', time: '12.500' });
    const [naive, keyless, blind, controls] = parsed.testsuites.testsuite;
    expect(naive.testcase).toEqual({ classname: 'crash-sweep.naive', name: 'naive once 1' });
    expect(keyless).toMatchObject({ name: 'the keyless row', tests: '3', failures: '1', errors: '1' });
    expect(keyless.testcase[0].failure).toEqual({
      '#text': 'dups 1\nagain: again <1> & "2"',
      message: 'dups 1',
      type: 'damage',
    });
    expect(keyless.testcase[1].error).toMatchObject({ message: 'kill 1 never landed', type: 'erred' });
    expect(keyless.testcase[2]).toEqual({ classname: 'crash-sweep.keyless', name: 'keyless once 3' });
    expect(blind.testcase.name).toBe('blind once 1');
    // The controls: one that showed damage passes, one that showed none fails, with why.
    expect(controls.testcase[0]).toEqual({ classname: 'crash-sweep.controls', name: 'naive shows damage' });
    expect(controls.testcase[1].failure.message).toMatch(/^control blind \(the blind row\) showed no damage/);
  });
});

describe('GitHub annotations', () => {
  test('an error line per damaged row and per reason the sweep could not judge, escaped, then a notice', () => {
    const rows = [row('keyless', { dups: 2 }), row('fixed', {})];
    const data = report(rows, [
      // Notable for a question only, which the sweep does not fail on: not the scenario to run again.
      { id: 'keyless once 2', row: 'keyless', outcome: { ...clean, asks: 1 }, rerun: 'npx crash-sweep --scenario 2' },
      { id: 'keyless once 1', row: 'keyless', outcome: { ...clean, dups: 2 }, rerun: 'npx crash-sweep --scenario 1' },
      { id: 'fixed once 1', row: 'fixed', outcome: clean },
    ]);
    const verdict = judgeSweep(rows, null, DEFAULT_FAIL_ON);
    expect(githubAnnotations(data, verdict, DEFAULT_FAIL_ON)).toEqual([
      '::error title=crash sweep%3A the keyless row::dups 2%0Aagain: npx crash-sweep --scenario 1',
      '::notice title=crash sweep::damage in 1 row(s): 3 scenarios of 2 row(s)',
    ]);
    const erred = judgeSweep([row('x', { errors: 1 })], null, DEFAULT_FAIL_ON);
    expect(githubAnnotations(report([row('x', { errors: 1 })], []), erred, DEFAULT_FAIL_ON)[0]).toBe(
      '::error title=crash sweep could not judge::1 scenario(s) erred (x 1): the table does not count them',
    );
  });
});

describe('--reporter', () => {
  test('names and files are checked where the flag comes in', () => {
    expect(reportersNamed(['table', 'github', 'junit=out.xml', 'html=out.html'])).toHaveLength(4);
    expect(reportersNamed(['junit'])).toHaveLength(1);
    expect(() => reportersNamed(['tap'])).toThrow(
      'unknown reporter "tap" (reporters: table, json, html, junit, github, or a module path: ./my-reporter.ts; NAME or NAME=FILE)',
    );
    expect(() => reportersNamed(['html'])).toThrow('reporter html needs a file: html=FILE');
    expect(() => reportersNamed(['table=t.txt'])).toThrow('reporter table writes to stdout: it takes no file');
    expect(() => reportersNamed(['junit='])).toThrow('reporter junit= names no file');
    expect(() => reportersNamed(['table', 'junit'])).toThrow(/reporter junit without a file writes to stdout/);
  });

  test("a reporter of the user's own: a module whose default export is a class of hooks, given FILE; one that is not, refused with why", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'reporter-'));
    const out = path.join(dir, 'rows.txt');
    const [table, own] = reportersNamed(['table', `./test/fixtures/reporters/rows-reporter.ts=${out}`]);
    expect(table.onEnd).toBeInstanceOf(Function);
    const rows = [row('naive', { dups: 2 }), row('keyed', {})];
    const verdict = judgeSweep(rows, judgeControls(rows), DEFAULT_FAIL_ON);
    own.onEnd?.({ report: report(rows, []), verdict, failOn: DEFAULT_FAIL_ON });
    expect(readFileSync(out, 'utf8')).toBe('naive: dups 2');
    expect(() => reportersNamed(['./test/fixtures/reporters/not-a-reporter.ts'])).toThrow(
      'reporter ./test/fixtures/reporters/not-a-reporter.ts has no hook: a reporter is an object of onBegin(rows) and onEnd(end), each optional but one',
    );
    expect(() => reportersNamed(['./no-such-reporter.ts'])).toThrow(
      /^reporter \.\/no-such-reporter\.ts does not load: /,
    );
  });
});
