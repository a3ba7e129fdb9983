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

/**
 * The sweep's JUnit XML: a test suite per row, a test case per scenario (`ROW once 3`), failed when
 * the scenario shows damage in the `failOn` columns and its row is not a control, in error when it
 * erred; each failure says how to run the scenario again. A last suite, `controls`, has a case per
 * control row, failed when the row showed no damage.
 */
export function junitXml(report: JsonReport, verdict: Verdict, failOn: readonly DamageColumn[]): string {
  const controls = new Set(report.rows.filter((r) => r.control).map((r) => r.name));
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  for (const row of report.rows) {
    const cases = report.scenarios
      .filter((s) => s.row === row.name)
      .map((s) => {
        const again = s.rerun ? `\nagain: ${s.rerun}` : '';
        const damage = controls.has(row.name) ? [] : scenarioDamage(s, failOn);
        const open = `    <testcase classname="crash-sweep.${xml(row.name)}" name="${xml(s.id)}"`;
        if (s.error)
          return `${open}>\n      <error message="${xml(s.error)}" type="erred">${xml(s.error + again)}</error>\n    </testcase>`;
        if (damage.length > 0)
          return `${open}>\n      <failure message="${xml(damage.join(', '))}" type="damage">${xml(damage.join('\n') + again)}</failure>\n    </testcase>`;
        return `${open}/>`;
      });
    const rowFailures = cases.filter((c) => c.includes('<failure')).length;
    const rowErrors = cases.filter((c) => c.includes('<error')).length;
    tests += cases.length;
    failures += rowFailures;
    errors += rowErrors;
    suites.push(
      `  <testsuite name="${xml(row.label)}" tests="${cases.length}" failures="${rowFailures}" errors="${rowErrors}">\n${cases.join('\n')}\n  </testsuite>`,
    );
  }
  const blind = new Set(verdict.harness);
  const controlCases = report.rows
    .filter((r) => r.control)
    .map((r) => {
      const failure = [...blind].find((line) => line.startsWith(`control ${r.name} `));
      const open = `    <testcase classname="crash-sweep.controls" name="${xml(r.name)} shows damage"`;
      return failure
        ? `${open}>\n      <failure message="${xml(failure)}" type="blind-control">${xml(failure)}</failure>\n    </testcase>`
        : `${open}/>`;
    });
  if (controlCases.length > 0) {
    const controlFailures = controlCases.filter((c) => c.includes('<failure')).length;
    tests += controlCases.length;
    failures += controlFailures;
    suites.push(
      `  <testsuite name="controls" tests="${controlCases.length}" failures="${controlFailures}" errors="0">\n${controlCases.join('\n')}\n  </testsuite>`,
    );
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="crash sweep" tests="${tests}" failures="${failures}" errors="${errors}" time="${report.seconds.toFixed(3)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
