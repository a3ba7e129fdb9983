// A sweep's verdict, and the exit status that says it: it passed, it found damage, or it could not judge.
import type { Row } from './counting';
import type { Outcome } from './counts';
import type { Stuck } from './stuck';
import { DAMAGE_COLUMNS, damageOf, type ControlVerdict, type DamageColumn } from './controls';

/**
 * The exit statuses of `crash-sweep`: `passed` (no row but a control shows damage in the `--fail-on`
 * columns), `damage` (one does), `badInput` (a bad command line or config file: nothing ran),
 * `harness` (the sweep could not judge: a scenario erred, a control showed no damage, the harness failed).
 */
export const EXIT_STATUS = { passed: 0, damage: 1, badInput: 2, harness: 3 } as const;

/**
 * The columns a sweep fails on by default: every column of damage but `asks`, since a question to a
 * person is the resolution ladder's last rung, by design (`--fail-on` adds it).
 */
export const DEFAULT_FAIL_ON: readonly DamageColumn[] = DAMAGE_COLUMNS.map(([column]) => column).filter(
  (c) => c !== 'asks',
);

/** `--fail-on`: a comma list of damage columns, `none`, or `damage` for every one of them. Throws on anything else. */
export function parseFailOn(items: readonly string[]): DamageColumn[] {
  const all = DAMAGE_COLUMNS.map(([column]) => column);
  if (items.length === 1 && items[0] === 'none') return [];
  if (items.length === 1 && items[0] === 'damage') return all;
  const unknown = items.filter((i) => !all.includes(i as DamageColumn));
  if (items.length === 0 || unknown.length > 0)
    throw new Error(
      `bad --fail-on ${JSON.stringify(items.join(','))}: a comma list of ${all.join(', ')}; or damage (all of them), or none`,
    );
  return items as DamageColumn[];
}

/** What a sweep found, for its exit status and its reporters. */
export interface Verdict {
  status: (typeof EXIT_STATUS)['passed' | 'damage' | 'harness'];
  /** The rows, not controls, that show damage in the columns the sweep fails on, with that damage. */
  damaged: Array<{ name: string; label: string; damage: string[] }>;
  /** Why the sweep could not judge, one line each (empty: it could). */
  harness: string[];
}

/**
 * Judges a sweep from its rows and its controls' verdict: the harness's failures first (a scenario
 * that erred counts in no column; a control that showed no damage makes every zero meaningless),
 * then damage in the `failOn` columns of any row that is not a control.
 */
export function judgeSweep(
  rows: readonly Row[],
  controls: ControlVerdict | null,
  failOn: readonly DamageColumn[],
): Verdict {
  const erred = rows.filter((r) => r.errors > 0);
  const harness = [
    ...(erred.length > 0
      ? [
          `${erred.reduce((n, r) => n + r.errors, 0)} scenario(s) erred (${erred.map((r) => `${r.name} ${r.errors}`).join(', ')}): the table does not count them`,
        ]
      : []),
    ...(controls?.failures ?? []),
  ];
  const damaged = rows
    .filter((r) => !r.control)
    .map((r) => ({ name: r.name, label: r.label, damage: damageOf(r, failOn) }))
    .filter((r) => r.damage.length > 0);
  const status =
    harness.length > 0 ? EXIT_STATUS.harness : damaged.length > 0 ? EXIT_STATUS.damage : EXIT_STATUS.passed;
  return { status, damaged, harness };
}

/** The verdict's lines for people: what failed the sweep, or that nothing did. */
export function formatVerdict(verdict: Verdict, failOn: readonly DamageColumn[]): string[] {
  if (verdict.status === EXIT_STATUS.passed)
    return [
      failOn.length > 0
        ? `passed: no row but a control shows damage in ${failOn.join(', ')}`
        : 'passed: the sweep fails on no column of damage (--fail-on none), only when it cannot judge',
    ];
  return [
    ...verdict.harness.map((line) => `the sweep could not judge: ${line}`),
    ...verdict.damaged.map((r) => `damage: ${r.name} (${r.label}): ${r.damage.join(', ')}`),
  ];
}

/**
 * The sweep's last line on stdout, after the table: how many scenarios in how many rows, and what the
 * verdict is, with its exit status. Nothing in it depends on the clock: the same sweep prints the same line.
 */
export function formatSummary(scenarios: number, rows: number, verdict: Verdict): string {
  const n = (count: number, what: string) => `${count} ${what}${count === 1 ? '' : 's'}`;
  const what =
    verdict.status === EXIT_STATUS.passed
      ? 'passed'
      : verdict.status === EXIT_STATUS.damage
        ? `damage in ${n(verdict.damaged.length, 'row')}`
        : `could not judge (${n(verdict.harness.length, 'reason')})`;
  return `crash sweep: ${n(scenarios, 'scenario')} in ${n(rows, 'row')}: ${what} (exit status ${verdict.status})`;
}

/** What a scenario's damage is read from: its counts, whether it got stuck, and how it ended (a report's scenario). */
export interface ScenarioCounts {
  outcome: Outcome | null;
  stuck: (Stuck & { text: string }) | null;
  end: string | null;
  otherEnd: { expected: string } | null;
}

/** A scenario's damage in the `failOn` columns, from its own counts: `dups 1`, `stuck: ...`. */
export function scenarioDamage(s: ScenarioCounts, failOn: readonly DamageColumn[]): string[] {
  return DAMAGE_COLUMNS.filter(([column]) => failOn.includes(column)).flatMap(([column, field, word]) => {
    if (column === 'stuck') return s.stuck ? [`stuck: ${s.stuck.text}`] : [];
    if (column === 'other-ends') return s.otherEnd ? [`ended ${s.end}, its clean run ${s.otherEnd.expected}`] : [];
    const n = Number((s.outcome as Record<string, unknown> | null)?.[field] ?? 0);
    return n > 0 ? [`${word} ${n}`] : [];
  });
}
