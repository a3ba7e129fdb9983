// The table for people: the rows of a sweep in the design document's columns.
import type { Row } from '../judge/counting';

/** The table's columns: the row field and its title. */
export const COLUMNS: Array<[keyof Row, string]> = [
  ['once', 'once'],
  ['twice', 'twice'],
  ['withDups', 'with dups'],
  ['dups', 'dups'],
  ['missing', 'missing'],
  ['orphans', 'orphans'],
  ['asks', 'asks'],
  ['callsExtra', 'calls+'],
  ['approvalsExtra', 'appr+'],
];

/** Columns shown only when a row has a count in them. */
const WHEN_ANY: Array<[keyof Row, string]> = [
  ['diverged', 'diverged'],
  ['halfDone', 'half done'],
  ['stuck', 'stuck'],
  ['otherEnds', 'other end'],
  ['errors', 'errors'],
];

/** The columns of a table of these rows: {@link COLUMNS}, then `diverged`, `half done`, `stuck`, `other end` and `errors` when a row has any. */
export function tableColumns(rows: readonly Row[]): Array<[keyof Row, string]> {
  return [...COLUMNS, ...WHEN_ANY.filter(([key]) => rows.some((r) => Number(r[key] ?? 0) > 0))];
}

/**
 * The table for people, in the design document's columns (plus `appr+`, and `diverged`, `half done`,
 * `stuck`, `other end` and `errors` when there are any). When its rows belong to more than one group (what fails), each group comes under a heading line.
 */
export function formatTable(rows: Row[]): string {
  const labelWidth = Math.max('variant'.length, ...rows.map((r) => r.label.length)) + 2;
  const columns = tableColumns(rows);
  const widths = columns.map(([key, title]) => Math.max(title.length, ...rows.map((r) => String(r[key]).length)));
  const line = (label: string, cells: string[]) =>
    (label.padEnd(labelWidth) + cells.map((c, i) => c.padStart(widths[i])).join('  ')).trimEnd();
  const grouped = new Set(rows.map((r) => r.group)).size > 1;
  const lines = [
    line(
      'variant',
      columns.map(([, title]) => title),
    ),
  ];
  rows.forEach((r, i) => {
    if (grouped && (i === 0 || rows[i - 1].group !== r.group)) lines.push(`-- ${r.group} --`);
    lines.push(
      line(
        r.label,
        columns.map(([key]) => String(r[key])),
      ),
    );
  });
  return lines.join('\n');
}
