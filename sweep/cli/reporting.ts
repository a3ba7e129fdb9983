// What the sweep and `merge` share at their end: the reporters and `--fail-on` from the command line, and the verdict.
import { commaList } from '../../common/cli';
import { DAMAGE_COLUMNS, type ControlVerdict, type DamageColumn } from '../judge/controls';
import { DEFAULT_FAIL_ON, EXIT_STATUS, judgeSweep, parseFailOn, type Verdict } from '../judge/verdict';
import type { JsonReport } from '../report/json';
import { REPORTERS, reportersNamed, type Reporter } from '../report/reporter';

/** The flags of reporting, as `parseArgs` takes them. */
export const REPORTING_FLAGS = {
  reporter: { type: 'string' },
  json: { type: 'string' },
  html: { type: 'string' },
  'fail-on': { type: 'string' },
} as const;

/** The usage of those flags. */
export const REPORTING_USAGE = '[--reporter NAME[=FILE],...] [--json FILE] [--html FILE] [--fail-on COLUMNS]';

/** Their help, and the exit statuses. */
export const REPORTING_HELP = `  --reporter NAME[=FILE],...  how the sweep reports: ${Object.keys(REPORTERS).join(', ')} (default table, on
                       stdout); json and junit write stdout without a FILE, html needs one
  --json/--html FILE   every scenario, as data or as a page (the json and html reporters, beside the table)
  --fail-on COLUMNS    the columns that fail the sweep when a row that is not a control shows any:
                       a comma list of ${DAMAGE_COLUMNS.map(([column]) => column).join(', ')}; damage
                       for all; none (default with --config: ${DEFAULT_FAIL_ON.join(',')}; without: none,
                       since this repository's own table shows what naive designs do, on purpose)
Exit status: ${EXIT_STATUS.passed} passed; ${EXIT_STATUS.damage} damage found (--fail-on); ${EXIT_STATUS.badInput} a bad command line or config; ${EXIT_STATUS.harness} the sweep could not
judge (a scenario erred, a control showed no damage, the harness failed).`;

/** How a sweep reports, from its command line. */
export interface Reporting {
  reporters: Reporter[];
  failOn: readonly DamageColumn[];
}

/**
 * The reporters and `--fail-on` of a command line; `config`: whether a config file was swept (its
 * rows fail on damage by default; this repository's own table does not). Throws on a bad flag.
 */
export function reportingOf(
  values: { reporter?: string; json?: string; html?: string; 'fail-on'?: string },
  config: boolean,
): Reporting {
  const reporters = [
    ...reportersNamed(values.reporter !== undefined ? commaList(values.reporter) : ['table']),
    ...reportersNamed([
      ...(values.json !== undefined ? [`json=${values.json}`] : []),
      ...(values.html !== undefined ? [`html=${values.html}`] : []),
    ]),
  ];
  const byDefault = config ? DEFAULT_FAIL_ON : [];
  const failOn = values['fail-on'] !== undefined ? parseFailOn(commaList(values['fail-on'])) : byDefault;
  return { reporters, failOn };
}

/** Judges a sweep's report (`controls`: null for a part of a sweep, which judges none) and gives it to every reporter. */
export function reportEnd(
  report: JsonReport,
  controls: ControlVerdict | null,
  { reporters, failOn }: Reporting,
): Verdict {
  const verdict = judgeSweep(report.rows, controls, failOn);
  for (const r of reporters) r.onEnd?.({ report, verdict, failOn });
  return verdict;
}
