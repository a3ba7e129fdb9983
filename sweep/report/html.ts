// The sweep's report as one self-contained HTML page (`--html`).
import { tableColumns } from './table';
import { rerunCommand, type JsonReport, type JsonScenario } from './json';

/**
 * The sweep's report as one self-contained page (no network, no library): the table; then, for each
 * variant, its crash points in order, a cell per first-pass scenario coloured by what happened, and
 * the second pass as a matrix (first kill's point x second kill's point), so the window where a design
 * duplicates shows at a glance. Clicking a cell shows its scenario: where it was killed, its counts,
 * its workflow id and the command that runs it again alone.
 */
export function htmlReport(data: JsonReport): string {
  const variants = data.rows.map((row) => section(row.name, row.label, data));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Crash sweep report</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Crash sweep</h1>
<p>${data.scenarios.length} scenarios in ${data.seconds.toFixed(0)} s. Each cell is one scenario: a worker SIGKILLed at a recorded point
(and, in the matrix, killed again at a point of its restart). Click a cell for its detail.</p>
${notes(data)}
${reruns(data)}
${legend()}
${table(data)}
${variants.join('\n')}
<aside id="detail" hidden></aside>
<script>const SCENARIOS = ${embed(data.scenarios.map((s) => ({ ...s, rerun: s.rerun ?? rerunCommand(s.row, s.kills, data.rerun) })))};
${SCRIPT}</script>
</body>
</html>
`;
}

/** What the suite says of how it ran its rows (a config's capped activity timeouts). */
function notes(data: JsonReport): string {
  return (data.notes ?? []).map((n) => `<p class="note">${esc(n)}</p>`).join('\n');
}

/** The runs that erred and were run again (a busy machine), if any: the table counts only clean runs. */
function reruns(data: JsonReport): string {
  if (data.reruns.length === 0) return '';
  const items = data.reruns.map((r) => `<li>${esc(`${r.id}, run ${r.attempt}: ${r.error}`)}</li>`).join('');
  return `<details class="reruns"><summary>${data.reruns.length} run(s) erred and were run again; the table counts only clean runs</summary><ul>${items}</ul></details>`;
}

/** What a scenario's cell says, worst first. */
export function verdict(
  s: JsonScenario,
): 'error' | 'stuck' | 'other-end' | 'missing' | 'diverged' | 'dup' | 'orphan' | 'half-done' | 'asked' | 'clean' {
  if (s.error || !s.outcome) return 'error';
  if (s.stuck) return 'stuck';
  if (s.otherEnd) return 'other-end';
  if (s.outcome.missing > 0) return 'missing';
  // A report written before the diverged count has none.
  if ((s.outcome.diverged ?? 0) > 0) return 'diverged';
  if (s.outcome.dups > 0) return 'dup';
  if ((s.outcome.orphans ?? 0) > 0) return 'orphan';
  if ((s.outcome.halfDone ?? 0) > 0) return 'half-done';
  if (s.outcome.asks > 0) return 'asked';
  return 'clean';
}

const VERDICTS = {
  clean: 'clean',
  asked: 'asked a person',
  dup: 'duplicated',
  diverged: 'a call acted on twice with other arguments',
  orphan: 'a write no reply in history accounts for',
  'half-done': 'stopped by a person with a reply half done',
  missing: 'missing an effect',
  stuck: 'stuck: can never finish',
  'other-end': 'ended otherwise than its clean run',
  error: 'error',
};

function legend(): string {
  return `<p class="legend">${Object.entries(VERDICTS)
    .map(([k, text]) => `<span class="cell ${k}"></span> ${text}`)
    .join(' &nbsp; ')}</p>`;
}

function table(data: JsonReport): string {
  // The printed table's columns: `errors` too when a row has any.
  const columns = tableColumns(data.rows);
  const head = `<tr><th>variant</th>${columns.map(([, title]) => `<th>${esc(title)}</th>`).join('')}</tr>`;
  // Rows under a heading per group (what fails), as in the printed table, when there is more than one.
  const grouped = new Set(data.rows.map((r) => r.group)).size > 1;
  const rows = data.rows.map((r, i) => {
    const heading =
      grouped && (i === 0 || data.rows[i - 1].group !== r.group)
        ? `<tr class="group"><th colspan="${columns.length + 1}">${esc(r.group)}</th></tr>`
        : '';
    return `${heading}<tr><td><a href="#${esc(r.name)}">${esc(r.label)}</a></td>${columns.map(([key]) => `<td>${esc(String(r[key]))}</td>`).join('')}</tr>`;
  });
  return `<table class="summary">${head}${rows.join('')}</table>`;
}

function section(variant: string, label: string, data: JsonReport): string {
  const points = data.points[variant] ?? [];
  const ofVariant = data.scenarios.map((s, i) => ({ s, i })).filter(({ s }) => s.row === variant);
  const once = new Map(ofVariant.filter(({ s }) => s.pass === 'once').map((x) => [x.s.kills[0], x]));
  const twice = ofVariant.filter(({ s }) => s.pass === 'twice');
  const cell = ({ s, i }: { s: JsonScenario; i: number }) =>
    `<button class="cell ${verdict(s)}" data-i="${i}" title="${esc(`${s.id}: ${VERDICTS[verdict(s)]}`)}"></button>`;

  const firstPass = points
    .map((p, k) => {
      const x = once.get(k + 1);
      return `<tr><td class="n">${k + 1}</td><td class="point">${esc(`${p.name} ${p.detail}`)}</td><td>${x ? cell(x) : ''}</td></tr>`;
    })
    .join('');

  // Rows: the first kill's point; columns: the point of the restart it was killed at again.
  const width = Math.max(0, ...twice.map(({ s }) => s.kills[1]));
  const byFirst = new Map<number, Map<number, { s: JsonScenario; i: number }>>();
  for (const x of twice) {
    const row = byFirst.get(x.s.kills[0]) ?? new Map();
    row.set(x.s.kills[1], x);
    byFirst.set(x.s.kills[0], row);
  }
  const matrix = [...byFirst.keys()]
    .sort((a, b) => a - b)
    .map((first) => {
      const row = byFirst.get(first)!;
      const cells = Array.from({ length: width }, (_, j) => {
        const x = row.get(j + 1);
        return `<td>${x ? cell(x) : ''}</td>`;
      });
      return `<tr><td class="n">${first}</td>${cells.join('')}</tr>`;
    })
    .join('');
  const header = `<tr><th></th>${Array.from({ length: width }, (_, j) => `<th>${j + 1}</th>`).join('')}</tr>`;

  return `<section id="${esc(variant)}">
<h2>${esc(label)} <small>${esc(variant)}</small></h2>
<div class="passes">
<div><h3>Killed once, at each point of a clean run</h3><table class="points">${firstPass}</table></div>
${twice.length ? `<div><h3>Killed twice: row = first point, column = point of the restart</h3><table class="matrix">${header}${matrix}</table></div>` : ''}
</div>
</section>`;
}

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** JSON that is safe inside a <script> element. */
function embed(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h2 small { color: #888; font-weight: normal; font-size: 60%; }
table.summary { border-collapse: collapse; margin: 12px 0 24px; }
table.summary td, table.summary th { border-bottom: 1px solid #ddd; padding: 3px 10px; text-align: right; }
table.summary td:first-child, table.summary th:first-child { text-align: left; }
table.summary tr.group th { text-align: left; padding-top: 12px; font-weight: normal; font-style: italic; }
.passes { display: flex; gap: 32px; align-items: flex-start; flex-wrap: wrap; }
table.points td, table.matrix td, table.matrix th { padding: 0 1px; font-size: 11px; }
td.n { color: #888; text-align: right; padding-right: 6px; }
td.point { font-family: ui-monospace, monospace; font-size: 11px; padding-right: 8px; }
.cell { display: inline-block; width: 12px; height: 12px; border: 0; padding: 0; margin: 0; cursor: pointer; vertical-align: middle; }
.cell.clean { background: #9bd39b; } .cell.asked { background: #f2c94c; } .cell.dup { background: #e05d5d; } .cell.diverged { background: #a33030; } .cell.orphan { background: #b07cd8; } .cell.half-done { background: #8fb3d9; }
.cell.missing { background: #7b3fa0; } .cell.stuck { background: #e08a2e; } .cell.other-end { background: #4a7fc1; } .cell.error { background: #333; }
#detail { position: fixed; right: 16px; top: 16px; width: 420px; max-height: 90vh; overflow: auto; background: #fff;
  border: 1px solid #bbb; box-shadow: 0 2px 8px rgba(0,0,0,.2); padding: 12px; font-size: 12px; }
#detail pre { white-space: pre-wrap; word-break: break-all; }
`;

const SCRIPT = `
const detail = document.getElementById('detail');
document.addEventListener('click', (event) => {
  const cell = event.target.closest('.cell[data-i]');
  if (!cell) { detail.hidden = true; return; }
  const s = SCENARIOS[Number(cell.dataset.i)];
  const text = (v) => String(v).replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]);
  const killed = s.landed.map((p, k) => (k + 1) + '. ' + p.name + ' ' + p.detail).join('\\n');
  detail.innerHTML = '<h3>' + text(s.id) + '</h3>'
    + '<p>killed at:</p><pre>' + text(killed) + '</pre>'
    + (s.operations ? '<p>then, at each kill:</p><pre>' + text(s.operations.join('\\n')) + '</pre>' : '')
    + '<p>counts:</p><pre>' + text(JSON.stringify(s.outcome, null, 1)) + '</pre>'
    + (s.stuck ? '<p>stuck:</p><pre>' + text(s.stuck.text) + '</pre>' : '')
    + (s.otherEnd ? '<p>ended:</p><pre>' + text(s.end + ' (its clean run: ' + s.otherEnd.expected + ')') + '</pre>' : '')
    + (s.error ? '<p>error:</p><pre>' + text(s.error) + '</pre>' : '')
    + '<p>workflow id: <code>' + text(s.workflowId) + '</code></p>'
    + '<p>run it again alone:</p><pre>' + text(s.rerun) + '</pre>';
  detail.hidden = false;
});
`;
