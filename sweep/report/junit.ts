// The sweep as JUnit XML (`--reporter junit`), which CI servers read: one test case per scenario.
import type { DamageColumn } from '../judge/controls';
import { scenarioDamage, type Verdict } from '../judge/verdict';
import type { JsonReport } from './json';

/** Text escaped for XML, with the characters XML 1.0 cannot hold dropped. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** One test case: passed, or failed or in error with a message, a type and a text. */
interface TestCase {
  classname: string;
  name: string;
  outcome?: { kind: 'failure' | 'error'; message: string; type: string; text: string };
}

/** A test suite of cases, with its counts read from the cases themselves. */
function suiteXml(name: string, cases: readonly TestCase[]): string {
  const count = (kind: 'failure' | 'error') => cases.filter((c) => c.outcome?.kind === kind).length;
  const body = cases.map(({ classname, name: caseName, outcome }) => {
    const open = `    <testcase classname="${xml(classname)}" name="${xml(caseName)}"`;
    if (!outcome) return `${open}/>`;
    const { kind, message, type, text } = outcome;
    return `${open}>\n      <${kind} message="${xml(message)}" type="${type}">${xml(text)}</${kind}>\n    </testcase>`;
  });
  return `  <testsuite name="${xml(name)}" tests="${cases.length}" failures="${count('failure')}" errors="${count('error')}">\n${body.join('\n')}\n  </testsuite>`;
}

/**
 * The sweep's JUnit XML: a test suite per row, a test case per scenario (`ROW once 3`), failed when
 * the scenario shows damage in the `failOn` columns and its row is not a control, in error when it
 * erred; each failure says how to run the scenario again. A last suite, `controls`, has a case per
 * control row, failed when the row showed no damage.
 */
export function junitXml(report: JsonReport, verdict: Verdict, failOn: readonly DamageColumn[]): string {
  const controls = new Set(report.rows.filter((r) => r.control).map((r) => r.name));
  const suites: Array<{ name: string; cases: TestCase[] }> = report.rows.map((row) => ({
    name: row.label,
    cases: report.scenarios
      .filter((s) => s.row === row.name)
      .map((s): TestCase => {
        const again = s.rerun ? `\nagain: ${s.rerun}` : '';
        const damage = controls.has(row.name) ? [] : scenarioDamage(s, failOn);
        const testCase = { classname: `crash-sweep.${row.name}`, name: s.id };
        if (s.error)
          return { ...testCase, outcome: { kind: 'error', message: s.error, type: 'erred', text: s.error + again } };
        if (damage.length > 0)
          return {
            ...testCase,
            outcome: { kind: 'failure', message: damage.join(', '), type: 'damage', text: damage.join('\n') + again },
          };
        return testCase;
      }),
  }));
  const blind = verdict.harness;
  const controlCases = report.rows
    .filter((r) => r.control)
    .map((r): TestCase => {
      const failure = blind.find((line) => line.startsWith(`control ${r.name} `));
      const testCase = { classname: 'crash-sweep.controls', name: `${r.name} shows damage` };
      return failure
        ? { ...testCase, outcome: { kind: 'failure', message: failure, type: 'blind-control', text: failure } }
        : testCase;
    });
  if (controlCases.length > 0) suites.push({ name: 'controls', cases: controlCases });
  // A sweep that stopped before any scenario (a clean run that was not clean) says why, as an error.
  if (report.scenarios.length === 0 && blind.length > 0)
    suites.push({
      name: 'harness',
      cases: blind.map((line, i) => ({
        classname: 'crash-sweep.harness',
        name: `the sweep could judge (${i + 1})`,
        outcome: { kind: 'error', message: line, type: 'cannot-judge', text: line },
      })),
    });
  const all = suites.flatMap((suite) => suite.cases);
  const count = (kind: 'failure' | 'error') => all.filter((c) => c.outcome?.kind === kind).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="crash sweep" tests="${all.length}" failures="${count('failure')}" errors="${count('error')}" time="${report.seconds.toFixed(3)}">`,
    ...suites.map((suite) => suiteXml(suite.name, suite.cases)),
    '</testsuites>',
    '',
  ].join('\n');
}
