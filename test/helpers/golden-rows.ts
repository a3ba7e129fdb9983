// A golden table's rows, read as a narrower table would print them: a table of a few rows shows a
// column such as `half done` only when one of its rows has a count there, and the golden file of
// every row may have more columns.
import { readFileSync } from 'node:fs';

/** A table's lines as cells (parted by two spaces or more): its header, then its rows (no group lines). */
export const tableCells = (table: string) =>
  table
    .trimEnd()
    .split('\n')
    .filter((line) => !line.startsWith('--'))
    .map((line) => line.split(/ {2,}/));

/**
 * The golden file's row of `label` in the columns of `header` (a narrower table's). A column the
 * golden file has beyond them must be 0 in that row, as the narrower table would only leave it out
 * then: a count there is added as `title=count`, so that it cannot compare equal.
 */
export function goldenRow(file: string, header: readonly string[], label: string): string[] | undefined {
  const [titles, ...rows] = tableCells(readFileSync(file, 'utf8'));
  const row = rows.find((r) => r[0] === label);
  if (!row) return undefined;
  const at = new Map(titles.map((t, i) => [t, row[i]]));
  const extra = titles.filter((t) => !header.includes(t) && at.get(t) !== '0').map((t) => `${t}=${at.get(t)}`);
  return [...header.map((t) => (t === 'variant' ? label : (at.get(t) ?? `no ${t}`))), ...extra];
}
