// The sweep as GitHub Actions annotations (`--reporter github`): a line per finding, shown on the run's page.

import type { DamageColumn } from '../judge/controls';
import { scenarioDamage, type Verdict } from '../judge/verdict';
import type { JsonReport } from './json';

/** A workflow command's message, escaped as GitHub reads it. */
const message = (text: string) => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
/** A workflow command's property, escaped as GitHub reads it. */
const property = (text: string) => message(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * One `::error` line per row that shows damage the sweep fails on (with the command that runs again
 * its first scenario with that damage) and per reason the sweep could not judge, then a `::notice` line with
 * the verdict. Lines, not a file: GitHub reads them from the step's output.
 */
export function githubAnnotations(report: JsonReport, verdict: Verdict, failOn: readonly DamageColumn[]): string[] {
  const lines = verdict.damaged.map((r) => {
    const again = report.scenarios.find((s) => s.row === r.name && scenarioDamage(s, failOn).length > 0)?.rerun;
    return `::error title=${property(`crash sweep: ${r.label}`)}::${message(`${r.damage.join(', ')}${again ? `\nagain: ${again}` : ''}`)}`;
  });
  for (const line of verdict.harness)
    lines.push(`::error title=${property('crash sweep could not judge')}::${message(line)}`);
  const total = report.scenarios.length;
  const said =
    verdict.harness.length > 0
      ? 'could not judge'
      : verdict.damaged.length > 0
        ? `damage in ${verdict.damaged.length} row(s)`
        : 'passed';
  lines.push(`::notice title=crash sweep::${message(`${said}: ${total} scenarios of ${report.rows.length} row(s)`)}`);
  return lines;
}
