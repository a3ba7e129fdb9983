// The sweep's table and HTML report from made-up scenarios, and the rows' names.
import { matches } from '../sweep/worker/line-protocol';
import { htmlReport } from '../sweep/report/html';
import { formatReruns, rerunCommand } from '../sweep/report/json';
import { summarizeErrors } from '../sweep/engine/reruns';
import { summarize } from '../sweep/judge/counting';
import { fillCounts } from '../sweep/judge/counts';
import { formatTable } from '../sweep/report/table';
import type { RanScenario } from '../sweep/engine/scenario';
import { selectRows, AGENT_ROWS } from '../agent-sweep/rows';
import { formatRowList } from '../sweep/engine/planning';

const [turn, reply] = AGENT_ROWS;

/** A clean run's counts: nothing done twice or missed, the script's three model calls. */
const CLEAN = fillCounts({ dups: 0, missing: 0, calls: 3 });

function scenario(
  row = turn,
  outcome: Partial<RanScenario['outcome']> | null = {},
  pass: RanScenario['pass'] = 'once',
): RanScenario {
  return {
    id: 'x',
    label: '1',
    row,
    pass,
    kills: [],
    expected: [],
    landed: [],
    runId: 'r',
    workflowId: 'w',
    tag: 'p',
    finalPoints: [],
    ...(outcome === null
      ? { error: 'kill 1 never landed' }
      : {
          outcome: { ...CLEAN, ...outcome },
        }),
  };
}

describe('sweep report', () => {
  test('sums scenarios per variant: with dups counts scenarios, dups counts extra effects, errors are never passes', () => {
    const rows = summarize(
      [turn, reply],
      [
        scenario(turn, { dups: 2, calls: 4 }),
        scenario(turn, { dups: 1 }, 'twice'),
        scenario(turn, {}, 'twice'),
        scenario(turn, null, 'twice'),
        scenario(reply, { asks: 3, missing: 1 }),
      ],
      new Map([['turn', CLEAN]]),
    );
    expect(rows[0]).toMatchObject({ once: 1, twice: 3, withDups: 2, dups: 3, callsExtra: 1, errors: 1 });
    expect(rows[1]).toMatchObject({ once: 1, twice: 0, withDups: 0, asks: 3, missing: 1, errors: 0 });
  });

  test('the table has the design document columns, and an errors column only when something failed', () => {
    const rows = summarize([turn], [scenario(turn, { dups: 1 })], new Map([['turn', CLEAN]]));
    expect(formatTable(rows)).toBe(
      [
        'variant             once  twice  with dups  dups  missing  orphans  asks  calls+  appr+',
        'save once per turn     1      0          1     1        0        0     0       0      0',
      ].join('\n'),
    );
    const failed = summarize([turn], [scenario(turn, null)], new Map());
    expect(formatTable(failed).split('\n')[0]).toMatch(/appr\+ {2}errors$/);
  });

  test('rows of more than one group (what fails) come under a heading line per group', () => {
    const wrong = { ...reply, name: 'reply-wrong', label: 'reply, wrong person', group: 'the person answers wrong' };
    const clean = new Map([turn, wrong].map((v) => [v.name, CLEAN]));
    const table = formatTable(summarize([turn, wrong], [scenario(turn), scenario(wrong)], clean)).split('\n');
    expect(table.map((l) => l.split(/ {2,}/)[0])).toEqual([
      'variant',
      '-- the worker dies --',
      'save once per turn',
      '-- the person answers wrong --',
      'reply, wrong person',
    ]);
    expect(formatTable(summarize([turn], [scenario(turn)], clean)).split('\n')).toHaveLength(2); // one group: no heading
  });

  test('the HTML report puts its summary rows under the same group headings', () => {
    const wrong = { ...reply, name: 'reply-wrong', label: 'reply, wrong person', group: 'the person answers wrong' };
    const clean = new Map([turn, wrong].map((v) => [v.name, CLEAN]));
    const rows = summarize([turn, wrong], [], clean);
    const page = htmlReport({
      rows,
      points: { turn: [], 'reply-wrong': [] },
      seconds: 1,
      notes: [],
      rerun: {},
      shard: null,
      scenarios: [],
      reruns: [],
    });
    const headings = [...page.matchAll(/<tr class="group"><th[^>]*>([^<]*)<\/th><\/tr>/g)].map((m) => m[1]);
    expect(headings).toEqual(['the worker dies', 'the person answers wrong']);
    expect(page.indexOf('the person answers wrong')).toBeLessThan(page.indexOf('reply, wrong person'));
  });

  test("the HTML report has the printed table's columns (errors too when a row has any), and the suite's notes", () => {
    const clean = new Map([[turn.name, CLEAN]]);
    const [row] = summarize([turn], [], clean);
    const page = (rows: (typeof row)[], notes: string[]) =>
      htmlReport({ rows, points: { turn: [] }, seconds: 1, notes, rerun: {}, shard: null, scenarios: [], reruns: [] });
    const titles = (html: string) => [...html.matchAll(/<th>([^<]*)<\/th>/g)].map((m) => m[1]);
    expect(titles(page([row], []))).not.toContain('errors');
    expect(formatTable([{ ...row, errors: 2 }])).toMatch(/ errors$/m);
    expect(titles(page([{ ...row, errors: 2 }], []))).toContain('errors');
    expect(page([row], ['activity timeouts capped for the sweep: <4 s>'])).toContain(
      '<p class="note">activity timeouts capped for the sweep: &lt;4 s&gt;</p>',
    );
  });

  test('a run that could never finish counts in the stuck column, shown only when a row has one', () => {
    const clean = new Map([[turn.name, CLEAN]]);
    const stuck = {
      ...scenario(turn, { missing: 1, calls: 3 }),
      stuck: { kind: 'failing' as const, activity: 'pay', attempt: 10, failure: '400' },
    };
    const rows = summarize([turn], [scenario(turn, { calls: 3 }), stuck], clean);
    expect(rows[0]).toMatchObject({ once: 2, stuck: 1, missing: 1, errors: 0 });
    expect(formatTable(rows).split('\n')[0]).toMatch(/ appr\+ {2}stuck$/);
    expect(formatTable(summarize([turn], [scenario(turn, { calls: 3 })], clean))).not.toMatch(/stuck/);
  });

  test('a call acted on again with other arguments counts in the diverged column, apart from dups, shown only when a row has one', () => {
    const clean = new Map([[turn.name, CLEAN]]);
    const rows = summarize([turn], [scenario(turn, { dups: 1, diverged: 2 }), scenario(turn, { diverged: 1 })], clean);
    expect(rows[0]).toMatchObject({ once: 2, withDups: 1, dups: 1, diverged: 3 });
    expect(formatTable(rows).split('\n')).toEqual([
      expect.stringMatching(/ appr\+ {2}diverged$/),
      expect.stringMatching(/ +2 +0 +1 +1 +0 +0 +0 +0 +0 +3$/),
    ]);
    expect(formatTable(summarize([turn], [scenario(turn, { dups: 1 })], clean))).not.toMatch(/diverged/);
  });

  test('the command that runs a scenario again is the one that started the sweep where it ran', () => {
    expect(rerunCommand('order-naive', [3, 2], { config: 'c.ts' })).toBe(
      'npm run sweep -- --config c.ts --variant order-naive --scenario 3.2 --keep-server',
    );
    expect(rerunCommand('order-naive', [3], { config: 'c.ts', command: 'npx crash-sweep', existingServer: true })).toBe(
      'npx crash-sweep --config c.ts --variant order-naive --scenario 3',
    );
  });

  test('runs that erred and were run again are named, with why, in the summary and on the page', () => {
    const reruns = [
      {
        id: 'agent once 3',
        attempt: 1,
        error: 'not caused by a kill: workflow task timed out at event 23 in live worker gen-7@12',
      },
      {
        id: 'agent once 3',
        attempt: 2,
        error: 'kill 1 landed on tool.started (call_1), expected tool.returned (call_1)',
      },
      {
        id: 'agent twice 4.1',
        attempt: 1,
        error: 'not caused by a kill: activity timed out at event 9 in live worker <gen-8@13>',
      },
    ];
    expect(summarizeErrors(reruns.map((r) => r.error))).toBe('2 not caused by a kill, 1 kill 1 landed on tool.started');
    expect(formatReruns(reruns).split('\n')).toEqual([
      're-ran 2 scenario(s) that erred (3 run(s) did not count: 2 not caused by a kill, 1 kill 1 landed on tool.started); the table counts only runs that were clean:',
      '  agent once 3, run 1: not caused by a kill: workflow task timed out at event 23 in live worker gen-7@12',
      '  agent once 3, run 2: kill 1 landed on tool.started (call_1), expected tool.returned (call_1)',
      '  agent twice 4.1, run 1: not caused by a kill: activity timed out at event 9 in live worker <gen-8@13>',
    ]);
    const page = htmlReport({
      rows: [],
      points: {},
      seconds: 1,
      notes: [],
      rerun: {},
      shard: null,
      scenarios: [],
      reruns,
    });
    expect(page).toContain('3 run(s) erred and were run again; the table counts only clean runs');
    expect(page).toContain(
      '<li>agent twice 4.1, run 1: not caused by a kill: activity timed out at event 9 in live worker &lt;gen-8@13&gt;</li>',
    );
    expect(
      htmlReport({ rows: [], points: {}, seconds: 1, notes: [], rerun: {}, shard: null, scenarios: [], reruns: [] }),
    ).not.toContain('erred and were run again');
  });

  test('approvals and paid calls count only beyond what the clean run made', () => {
    const clean = new Map([['reply', fillCounts({ ...CLEAN, approvals: 2 })]]);
    const rows = summarize(
      [reply],
      [scenario(reply, { approvals: 3, calls: 5 }), scenario(reply, { approvals: 2, calls: 2 })],
      clean,
    );
    expect(rows[0].approvalsExtra).toBe(1);
    expect(rows[0].callsExtra).toBe(2);
  });

  test('--variant names are checked, and all variants are the default', () => {
    expect(selectRows().map((v) => v.name)).toEqual(AGENT_ROWS.map((v) => v.name));
    expect(selectRows('agent, keys').map((v) => v.name)).toEqual(['agent', 'keys']);
    expect(() => selectRows('agent,nope')).toThrow(/unknown variant "nope" \(variants: turn, reply, keys/);
  });

  test('--variant takes a row by its title in the table too, commas and all; every title names one row', () => {
    expect(new Set(AGENT_ROWS.map((v) => v.label)).size).toBe(AGENT_ROWS.length);
    expect(selectRows('agent loop, keyed tracker,reply, agent loop, keyless, no lookup').map((v) => v.name)).toEqual([
      'agent',
      'reply',
      'agent-keyless',
    ]);
    expect(() => selectRows('agent loop')).toThrow(
      /unknown variant "agent loop" \(variants: .*; --list shows each with its title/,
    );
    expect(formatRowList(AGENT_ROWS).split('\n')[5]).toMatch(/^agent +agent loop, keyed tracker$/);
  });

  test('a kill target matches on every field it names', () => {
    expect(matches({ index: 3 }, 3, 'tool.started', 'create_issue c1')).toBe(true);
    expect(matches({ index: 3 }, 4, 'tool.started', 'create_issue c1')).toBe(false);
    expect(matches({ name: 'tool.started', detail: 'create_issue c1' }, 9, 'tool.started', 'create_issue c1')).toBe(
      true,
    );
    expect(matches({ name: 'tool.started', detail: 'create_issue c2' }, 9, 'tool.started', 'create_issue c1')).toBe(
      false,
    );
  });
});
