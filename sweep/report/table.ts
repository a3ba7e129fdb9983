// The table for people: the rows of a sweep in the design document's columns.
import { COLUMNS, type ColumnField } from '../judge/columns';
import type { Row } from '../judge/counting';

/** The columns of a table of these rows: every column, but one shown `whenAny` only when a row has a count in it. */
export function tableColumns(rows: readonly Row[]): Array<[ColumnField, string]> {
  return COLUMNS.filter((c) => !c.whenAny || rows.some((r) => Number(r[c.field] ?? 0) > 0)).map((c) => [
    c.field,
    c.title,
  ]);
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
