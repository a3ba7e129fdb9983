// Controls: a row known to do damage must show some, or the sweep fails with the reason (sweep/judge/controls.ts).
import { damageOf, formatControls, judgeControls } from '../sweep/judge/controls';
import { emptyRow, type Row } from '../sweep/judge/counting';

const row = (name: string, counts: Partial<Row>, control = true): Row => ({
  ...emptyRow({ name, label: `the ${name} row`, control }),
  once: 20,
  ...counts,
});

test("a row's damage is read from its columns: duplicates, losses, orphans, questions, stuck runs, other ends", () => {
  expect(damageOf(row('r', {}))).toEqual([]);
  expect(damageOf(row('r', { withDups: 2, dups: 3, asks: 4 }))).toEqual(['dups 3', 'asks 4']);
  expect(damageOf(row('r', { missing: 1, orphans: 2, stuck: 3, otherEnds: 4 }))).toEqual([
    'missing 1',
    'orphans 2',
    'stuck 3',
    'other ends 4',
  ]);
  // Extra model calls and approvals are costs, not damage a control is there to show.
  expect(damageOf(row('r', { callsExtra: 17, approvalsExtra: 2, halfDone: 10 }))).toEqual([]);
});

test('every control that shows damage passes; one that shows none fails the sweep, named, with the reason', () => {
  const rows = [row('naive', { withDups: 6, dups: 6 }), row('fixed', {}, false), row('blind', {})];
  const verdict = judgeControls(rows);
  expect(verdict.controls).toEqual([
    { name: 'naive', label: 'the naive row', damage: ['dups 6'] },
    { name: 'blind', label: 'the blind row', damage: [] },
  ]);
  expect(verdict.failures).toEqual([
    expect.stringMatching(/^control blind \(the blind row\) showed no damage: .* cannot see damage/),
  ]);
  expect(formatControls(verdict)).toBe('controls (rows that must show damage): naive dups 6; blind NONE');
  expect(judgeControls(rows.slice(0, 2)).failures).toEqual([]);
});

test('a sweep without a control says so, and fails for none', () => {
  const verdict = judgeControls([row('fixed', {}, false)]);
  expect(verdict).toEqual({ controls: [], failures: [] });
  expect(formatControls(verdict)).toMatch(/^controls: none in this sweep/);
});
