// What a scenario repeats of its clean run, by points (sweep/report/tails.ts): pure logic on a report.
import { formatTails, sharedTail, tailsOf } from '../sweep/report/tails';

const p = (name: string, detail = '') => ({ name, detail });
const clean = [p('a'), p('b'), p('c', 'x'), p('d'), p('e')];

test('the shared tail is the run of last points equal, name and detail, to the clean run’s last ones', () => {
  expect(sharedTail([p('b'), p('c', 'x'), p('d'), p('e')], clean)).toBe(4);
  expect(sharedTail([p('b'), p('c', 'y'), p('d'), p('e')], clean)).toBe(2);
  expect(sharedTail([p('e'), p('d')], clean)).toBe(0);
  expect(sharedTail([], clean)).toBe(0);
  expect(sharedTail(clean, clean)).toBe(5);
});

test("a row's scenarios: the prefix before the first kill, the points between kills, the restart and its clean tail; an erred scenario is left out", () => {
  const scenario = (kills: number[], restartPoints: ReturnType<typeof p>[], error: string | null = null) =>
    ({ row: 'r', kills, restartPoints, error }) as never;
  const report = {
    points: { r: clean },
    scenarios: [
      scenario([3], [p('c', 'x'), p('d'), p('e')]), // killed at c: a prefix of 2, a restart that is all tail
      scenario([2, 2], [p('retry'), p('d'), p('e')]), // killed at b, then in the restart: 1 + 1, a tail of 2
      scenario([4], [], 'kill 1 never landed'),
    ],
  };
  expect(tailsOf(report)).toEqual([{ row: 'r', scenarios: 2, prefix: 3, between: 1, restart: 6, tail: 5 }]);
  expect(formatTails(tailsOf(report)).split('\n').at(-1)).toMatch(/^all rows +2 +10 +30% +50% +20%$/);
});
