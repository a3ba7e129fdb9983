// The table's columns, in one list: what each counts of a scenario, its title, when the table shows it,
// and the damage it stands for. Counting (`summarize`), the merge of shards, the table, the JSON and
// HTML reports, `--fail-on` and the controls are all made from it.
import type { Outcome } from './counts';

/** What a column reads of a scenario (`Scenario` in the engine): its row, pass, counts, and how it ended. */
export interface CountedScenario {
  row: { name: string };
  pass: 'clean' | 'once' | 'twice';
  outcome?: Outcome;
  stuck?: unknown;
  otherEnd?: unknown;
  error?: string;
}

/** A column that shows damage, as `--fail-on` names it. */
export type DamageColumn = 'dups' | 'diverged' | 'missing' | 'orphans' | 'asks' | 'stuck' | 'other-ends';

/** One column of the table. */
export interface Column<F extends string = string> {
  /** The row's field that holds the column's sum. */
  field: F;
  /** Its title in the table and the HTML report. */
  title: string;
  /** Shown only when a row has a count in it (and read as 0 from a report written before it existed). */
  whenAny?: true;
  /** The damage it stands for: the name `--fail-on` takes, and the word of a damage line (`dups 3`). */
  damage?: { flag: DamageColumn; word: string };
  /** A scenario with a count here is one the reports list (not only summed). */
  notable?: true;
  /** What one scenario adds; `clean` is its row's clean run's counts (for what is counted beyond it). */
  of: (s: CountedScenario, clean: Outcome | undefined) => number;
}

/** A scenario that finished and was counted; one that erred counts only in `errors`. */
const counted =
  (f: (o: Outcome, s: CountedScenario, clean: Outcome | undefined) => number) =>
  (s: CountedScenario, clean: Outcome | undefined) => (s.error || !s.outcome ? 0 : f(s.outcome, s, clean));
const beyondClean = (key: 'calls' | 'approvals') =>
  counted((o, _s, clean) => Math.max(0, o[key] - (clean?.[key] ?? 0)));

/** The columns, in the table's order, as written (their fields make {@link ColumnField}). */
const COLUMN_LIST = [
  /** Crash points of a clean run: one scenario each. */
  { field: 'once', title: 'once', of: (s) => (s.pass === 'once' ? 1 : 0) },
  /** The extra scenarios that also kill the restart, once at each point it reaches. */
  { field: 'twice', title: 'twice', of: (s) => (s.pass === 'twice' ? 1 : 0) },
  /** Scenarios that ended with a duplicate effect (the agent: an extra issue or comment). */
  { field: 'withDups', title: 'with dups', of: counted((o) => (o.dups > 0 ? 1 : 0)) },
  /** Duplicate effects, over all scenarios. */
  { field: 'dups', title: 'dups', damage: { flag: 'dups', word: 'dups' }, notable: true, of: counted((o) => o.dups) },
  /** Effects that should have happened and did not (the agent: issues and comments the tracker never got). */
  {
    field: 'missing',
    title: 'missing',
    damage: { flag: 'missing', word: 'missing' },
    notable: true,
    of: counted((o) => o.missing),
  },
  /** Effects nothing in the run accounts for (the agent: a write of a model reply its history does not hold). */
  {
    field: 'orphans',
    title: 'orphans',
    damage: { flag: 'orphans', word: 'orphans' },
    notable: true,
    of: counted((o) => o.orphans),
  },
  /** Questions put to a person. */
  { field: 'asks', title: 'asks', damage: { flag: 'asks', word: 'asks' }, notable: true, of: counted((o) => o.asks) },
  /** Model calls beyond the clean run's. */
  { field: 'callsExtra', title: 'calls+', of: beyondClean('calls') },
  /** Approvals requested beyond the clean run's. */
  { field: 'approvalsExtra', title: 'appr+', of: beyondClean('approvals') },
  /** Copies of a call's effect made with other arguments, over all scenarios (`Counts.diverged`). */
  {
    field: 'diverged',
    title: 'diverged',
    whenAny: true,
    damage: { flag: 'diverged', word: 'diverged' },
    notable: true,
    of: counted((o) => o.diverged),
  },
  /** Effects a run a person stopped had asked for and never made (the agent: a reply's writes it did not get to). */
  { field: 'halfDone', title: 'half done', whenAny: true, notable: true, of: counted((o) => o.halfDone) },
  /** Scenarios whose run could never finish (after its last restart an activity kept failing the same way). */
  {
    field: 'stuck',
    title: 'stuck',
    whenAny: true,
    damage: { flag: 'stuck', word: 'stuck' },
    notable: true,
    of: counted((_o, s) => (s.stuck ? 1 : 0)),
  },
  /** Scenarios whose run ended otherwise than its clean run (completed where that one failed, or failed otherwise). */
  {
    field: 'otherEnds',
    title: 'other end',
    whenAny: true,
    damage: { flag: 'other-ends', word: 'other ends' },
    notable: true,
    of: counted((_o, s) => (s.otherEnd ? 1 : 0)),
  },
  /** Scenarios whose kill did not land or whose run did not finish: each one fails the sweep. */
  { field: 'errors', title: 'errors', whenAny: true, notable: true, of: (s) => (s.error || !s.outcome ? 1 : 0) },
] as const satisfies ReadonlyArray<Column>;

/** The field of a column: a count of a row. */
export type ColumnField = (typeof COLUMN_LIST)[number]['field'];

/** The columns, in the table's order: what counting, merging, the reports and the verdict are made from. */
export const COLUMNS: ReadonlyArray<Column<ColumnField>> = COLUMN_LIST;

/** The columns that show damage: the name `--fail-on` takes, the row's field, and the word a damage line uses. */
export const DAMAGE_COLUMNS: ReadonlyArray<readonly [DamageColumn, ColumnField, string]> = COLUMNS.flatMap((c) =>
  c.damage ? [[c.damage.flag, c.field, c.damage.word] as const] : [],
);

/** Whether the reports list a scenario: it erred, or counts in a column marked `notable`. */
export function isNotable(s: CountedScenario): boolean {
  return COLUMNS.some((c) => c.notable && c.of(s, undefined) > 0);
}
