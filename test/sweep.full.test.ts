// The golden sweep. CI (`npm run test:full`) kills every row once and the agent loop's rows where a
// process dies (the worker, a receiver, the Temporal server) twice too: the rows the loop's guarantee is
// about. The designs it is compared with, the person who answers wrong and the model that changes its
// mind are killed once there: their first pass already shows what each row is for, and killing them twice
// too would take CI past its hour. `npm run test:table` (WHOLE_TABLE=1) kills every row twice and checks
// the whole golden table (about 85 minutes on a 2-core machine). `npm test` sweeps the agent loop's row
// once (sweep.golden.test.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { agentSuite } from '../agent-sweep/agent-suite';
import { configSuite } from '../sweep/config/config-suite';
import { WORKER_GROUP, type Row } from '../sweep/judge/counting';
import { formatTable } from '../sweep/report/table';
import { runSweep, type SweepReport } from '../sweep/engine/passes';
import { selectRows, SERVER_GROUP, TRACKER_GROUP, type AgentRow } from '../agent-sweep/rows';
import { ROOT } from './helpers/processes';
import { firstPassOnly, receiverDeathOf } from '../sweep/faults';

const wholeTable = process.env.WHOLE_TABLE === '1';
const golden = readFileSync(path.join(ROOT, 'testdata', 'sweep.txt'), 'utf8').trimEnd();
// What `npm run sweep` prints by default: the same sweep's first pass.
const goldenFirstPass = readFileSync(path.join(ROOT, 'testdata', 'sweep-once.txt'), 'utf8').trimEnd();

/** The rows CI kills twice: the agent loop's, where the worker, a receiver or the Temporal server dies. */
const TWICE_GROUPS = new Set([WORKER_GROUP, TRACKER_GROUP, SERVER_GROUP]);
const killedTwice = (r: AgentRow) =>
  wholeTable || (r.workflowType === 'agentWorkflow' && TWICE_GROUPS.has(r.group ?? WORKER_GROUP) && !firstPassOnly(r));
const swept = selectRows().map((r) => (killedTwice(r) ? r : { ...r, firstPassOnly: true }));

/**
 * The table this sweep must print: the golden table's line of each row killed twice, the golden first
 * pass's line of each row killed once (the two files have the same rows in the same order).
 */
function expectedTable(): string {
  const label = (line: string) => line.split(/ {2,}/)[0];
  const twiceLabels = new Set(swept.filter((r) => !firstPassOnly(r)).map((r) => r.label));
  const onceLines = new Map(goldenFirstPass.split('\n').map((line) => [label(line), line]));
  return golden
    .split('\n')
    .map((line) => (line.startsWith('--') || twiceLabels.has(label(line)) ? line : onceLines.get(label(line))))
    .join('\n');
}

let report: SweepReport;
let rows: Record<string, Row>;
/** The row of a scenario, by its id (`agent-mcp twice 3.7`). */
const rowOf = (id: string) => report.scenarios.find((s) => s.id === id)!.row as AgentRow;

// A time limit for a hung sweep, not a speed check (speed is `npm run bench`'s): room for a machine
// shared with another sweep, or a slow day (past 50 minutes on 2026-12-02, 25 before), within CI's 90.
beforeAll(async () => {
  report = await runSweep({ suite: agentSuite(swept) });
  rows = Object.fromEntries(report.rows.map((r) => [r.name, r]));
}, 3_900_000);

describe(`crash sweep: every variant killed at every recorded point, ${wholeTable ? 'every one' : "the agent loop's where a process dies"} twice too`, () => {
  test('every kill landed on its recorded point, every run finished, and every timeout in every history was a kill', () => {
    const failed = report.scenarios.filter((s) => s.error).map((s) => `${s.id}: ${s.error}`);
    expect(failed).toEqual([]);
    for (const s of report.scenarios)
      expect(s.landed.map((p) => [p.name, p.detail])).toEqual(s.expected.map((p) => [p.name, p.detail]));
  });

  test(`the table equals ${wholeTable ? 'the golden table in testdata/sweep.txt' : "testdata/sweep.txt's lines of the rows killed twice and testdata/sweep-once.txt's of the others"}`, () => {
    expect(formatTable(report.rows)).toBe(wholeTable ? golden : expectedTable());
  });

  test('the rows killed twice include one of each process that dies: the worker mid-call, the MCP server, the tracker, the Temporal server', () => {
    const twice = swept.filter((r) => !firstPassOnly(r)).map((r) => r.name);
    expect(twice).toEqual(
      expect.arrayContaining(['agent', 'agent-mid-call', 'agent-mcp', 'agent-tracker-received', 'agent-server-worker']),
    );
    for (const name of twice) expect([name, rows[name].twice > 0]).toEqual([name, true]);
  });

  test("the first pass's table (what npm run sweep prints without --full) equals testdata/sweep-once.txt", () => {
    expect(formatTable(report.firstPass)).toBe(goldenFirstPass);
  });

  test('a receiver slower than the timeout: damage without key claims or a stated commit deadline; none with them', () => {
    for (const name of ['agent-slow-unclaimed', 'agent-slow-keyless-silent']) {
      expect([name, rows[name].withDups > 0, rows[name].missing]).toEqual([name, true, 0]);
    }
    for (const name of ['agent-slow', 'agent-slow-keyless']) {
      expect([name, rows[name].dups, rows[name].missing, rows[name].orphans, rows[name].asks]).toEqual([
        name,
        0,
        0,
        0,
        0,
      ]);
    }
  });

  test('the network loses a request or its reply: without keys the write is made twice, without a lookup a person is asked; keys or a lookup settle it once', () => {
    const naive = rows['reply-reply-lost'];
    expect([naive.withDups, naive.missing]).toEqual([naive.once, 0]);
    expect(rows['agent-keyless-request-lost'].asks).toBeGreaterThanOrEqual(rows['agent-keyless-request-lost'].once);
    for (const name of ['agent-reply-lost', 'agent-keyless-lookup-reply-lost', 'agent-keyless-lookup-request-lost']) {
      const r = rows[name];
      expect([name, r.dups, r.missing, r.orphans, r.asks]).toEqual([name, 0, 0, 0, 0]);
    }
  });

  test('a model that changes its mind under the ids it used: without keys the same call acts again with other arguments (diverged); the keyed tracker refuses it; the loop reading its earlier executions never meets it', () => {
    for (const name of ['turn-fickle-same-ids', 'reply-reset-first-fickle-same-ids'])
      expect([name, rows[name].diverged > 0]).toEqual([name, true]);
    for (const name of [
      'agent-fickle-same-ids',
      'agent-blind-reset-first-fickle-same-ids',
      'agent-reset-first-fickle-same-ids',
    ])
      expect([name, rows[name].diverged, rows[name].dups, rows[name].missing]).toEqual([name, 0, 0, 0]);
    expect(rows['agent-reset-first-fickle-same-ids']).toMatchObject({ orphans: 0, asks: 0 });
    // A reset reapplies the old approval to the new reply's call of the same id: refused, the person asked
    // again, and no call ran under an approval of other arguments (the suite's check would have erred).
    expect(rows['agent-approval-blind-reset-first-fickle-same-ids']).toMatchObject({
      dups: 0,
      diverged: 0,
      missing: 0,
    });
  });

  test('every control row shows damage: the sweep sees what the naive loops do (judge/controls.ts)', () => {
    expect(report.controls!.failures).toEqual([]);
    expect(report.controls!.controls.map((c) => c.name)).toEqual(
      expect.arrayContaining(['turn', 'agent-slow-unclaimed', 'reply-reply-lost', 'markers-wrong', 'turn-fickle']),
    );
  });

  test('nothing is missing in any variant where only the worker fails, or the tracker process or the Temporal server dies too', () => {
    for (const r of report.rows.filter(
      (row) => row.group === WORKER_GROUP || row.group === TRACKER_GROUP || row.group === SERVER_GROUP,
    )) {
      expect([r.name, r.missing]).toEqual([r.name, 0]);
    }
  });

  test('the Temporal server dies at every point, once and twice: every run finishes with nothing lost or repeated; a surviving worker pays for no model call again', () => {
    for (const name of ['agent-server', 'agent-server-worker']) {
      expect([name, rows[name].once > 20, rows[name].twice > 200, rows[name].errors]).toEqual([name, true, true, 0]);
    }
    expect(rows['agent-server'].callsExtra).toBe(0);
    // One kill per round of every batch of the two rows (not per run: a kill cuts off a whole batch at its points).
    expect(report.temporalKills).toBeGreaterThan(0);
  });

  test('a person who answers wrong does damage where a person is asked, and none where keys leave nobody to ask', () => {
    for (const name of ['markers-wrong', 'agent-keyless-wrong']) {
      expect([name, rows[name].asks > 0, rows[name].dups + rows[name].missing > 0]).toEqual([name, true, true]);
    }
    for (const name of ['keys-markers-wrong', 'agent-wrong']) {
      expect([name, rows[name].asks, rows[name].dups, rows[name].missing]).toEqual([name, 0, 0, 0]);
    }
  });

  test('no duplicate, orphan or missing write in any keyed agent row, whatever fails', () => {
    for (const name of [
      'agent',
      'agent-mid-call',
      'agent-mcp',
      'agent-approval',
      'agent-tracker-received',
      'agent-tracker-committed',
      'agent-server',
      'agent-server-worker',
      'agent-slow',
      'agent-wrong',
      'agent-approval-denied',
      'agent-fickle',
    ]) {
      expect([name, rows[name].dups, rows[name].orphans, rows[name].missing]).toEqual([name, 0, 0, 0]);
    }
  });

  test('a model that changes its mind: a repeated turn leaves orphan writes; saving the reply before any tool runs leaves none', () => {
    expect(rows['turn-fickle'].orphans).toBeGreaterThan(0);
    expect(rows['reply-fickle'].orphans).toBe(0);
    expect(rows['reply-fickle'].dups).toBeGreaterThan(0); // its window after the tracker accepted a write is still there
  });

  test('a person resets the run: blind to earlier executions, a model that changes its mind leaves orphans and a keyless receiver gets every write again; reading them, the loop repeats nothing and pays for no reply twice', () => {
    expect(rows['agent-blind-reset-first-fickle'].orphans).toBeGreaterThan(0);
    expect(rows['agent-keyless-lookup-blind-reset-first'].dups).toBeGreaterThan(0);
    for (const name of [
      'agent-reset-last',
      'agent-reset-first',
      'agent-reset-last-fickle',
      'agent-reset-first-fickle',
      'agent-keyless-lookup-reset-first',
      'agent-keyless-lookup-reset-first-fickle',
    ])
      expect([name, rows[name].dups, rows[name].missing, rows[name].orphans]).toEqual([name, 0, 0, 0]);
    // Only a model call cut off by a kill is paid for again, not the replies the earlier run got.
    expect(rows['agent-reset-first'].callsExtra).toBeLessThan(rows['agent-blind-reset-first-fickle'].callsExtra);
    // The naive design saves the reply, but a reset throws it away with its history.
    expect(rows['reply-reset-first-fickle'].orphans).toBeGreaterThan(0);
    expect([rows['reply-reset-first'].dups > 0, rows['reply-reset-first'].orphans]).toEqual([true, 0]);
  });

  test('the run fails and its retry policy starts it over: the same as a reset to the first task, blind or reading', () => {
    for (const name of [
      'agent-retried',
      'agent-retried-fickle',
      'agent-keyless-lookup-retried',
      'agent-keyless-lookup-retried-fickle',
    ])
      expect([name, rows[name].dups, rows[name].missing, rows[name].orphans]).toEqual([name, 0, 0, 0]);
    expect(rows['agent-blind-retried-fickle'].orphans).toBeGreaterThan(0);
    expect(rows['agent-keyless-lookup-blind-retried'].dups).toBeGreaterThan(0);
    // Killed once, a retried run and a run reset to its first task start over from the same input.
    const firstPass = Object.fromEntries(report.firstPass.map((r) => [r.name, r]));
    const counts = ({ once, withDups, dups, missing, orphans, asks, callsExtra }: Row) =>
      JSON.stringify({ once, withDups, dups, missing, orphans, asks, callsExtra });
    for (const [base, model] of [
      ...['agent', 'agent-keyless-lookup', 'reply'].flatMap((b) => [
        [b, ''],
        [b, '-fickle'],
      ]),
      ['agent-blind', '-fickle'],
      ['agent-keyless-lookup-blind', ''],
    ])
      expect([base, model, counts(firstPass[`${base}-retried${model}`])]).toEqual([
        base,
        model,
        counts(firstPass[`${base}-reset-first${model}`]),
      ]);
  });

  test('a person cancels or terminates the run: nothing twice, lost or orphaned; what a saved reply asked for and the run never did is half done', () => {
    for (const base of ['agent', 'agent-keyless-lookup', 'reply'])
      for (const stop of ['cancelled', 'terminated']) {
        const name = `${base}-${stop}`;
        const { dups, missing, orphans, otherEnds, halfDone } = rows[name];
        expect([name, dups, missing, orphans, otherEnds, halfDone > 0]).toEqual([name, 0, 0, 0, 0, true]);
      }
  });

  test('a person who denies: nothing of a denied call happens (the tracker keeps no row of the run), and no approval is asked twice', () => {
    expect(rows['agent-approval-denied']).toMatchObject({
      dups: 0,
      withDups: 0,
      missing: 0,
      orphans: 0,
      approvalsExtra: 0,
      errors: 0,
    });
  });

  test('no duplicate in any keyed design nor in any run of the agent loop', () => {
    for (const name of [
      'keys',
      'keys-markers',
      'agent',
      'agent-keyless-lookup',
      'agent-keyless',
      'agent-mid-call',
      'agent-mcp',
      'agent-mcp-keyless-lookup',
      'agent-approval',
      'agent-tracker-received',
      'agent-tracker-committed',
      'agent-keyless-tracker-received',
      'agent-keyless-tracker-committed',
      'agent-server',
      'agent-server-worker',
      'agent-slow',
      'agent-slow-keyless',
    ]) {
      expect([name, rows[name].dups, rows[name].withDups]).toEqual([name, 0, 0]);
    }
  });

  test('no question to a person with keys and markers, in the keyed agent loop, nor where the receiver can be searched', () => {
    for (const name of [
      'keys-markers',
      'agent',
      'agent-mid-call',
      'agent-mcp',
      'agent-approval',
      'agent-keyless-lookup',
      'agent-mcp-keyless-lookup',
      'agent-tracker-received',
      'agent-tracker-committed',
      'agent-keyless-tracker-received',
      'agent-keyless-tracker-committed',
      'agent-server',
      'agent-server-worker',
      'agent-slow',
      'agent-slow-keyless',
    ]) {
      expect([name, rows[name].asks]).toEqual([name, 0]);
    }
  });

  test('the tracker processes really were killed mid-request: once per write of every run whose tracker dies', () => {
    // and the two clean runs of each of the four rows
    const runs = report.scenarios.filter((s) => receiverDeathOf(s.row)?.receiver === 'tracker').length + 4 * 2;
    expect(report.stats.trackerKills).toBeGreaterThan(0);
    // A run that erred and was run again (a busy machine) had some of its writes parked too, up to three.
    const erred = report.reruns.filter((r) => receiverDeathOf(rowOf(r.id))?.receiver === 'tracker').length;
    expect(report.stats.trackerWrites).toBeGreaterThanOrEqual(runs * 3);
    expect(report.stats.trackerWrites).toBeLessThanOrEqual((runs + erred) * 3);
  });

  test('the MCP servers really were killed mid-call: once per write of every MCP run', () => {
    const mcpRuns = report.scenarios.filter((s) => receiverDeathOf(s.row)?.receiver === 'mcp').length + 2 * 2; // and two clean runs of each row
    expect(report.stats.mcpKills).toBeGreaterThan(0);
    // Each kill fails every call parked at its server; every run had its three writes parked once (a
    // run that erred and was run again, up to three).
    const erred = report.reruns.filter((r) => receiverDeathOf(rowOf(r.id))?.receiver === 'mcp').length;
    expect(report.stats.mcpWrites).toBeGreaterThanOrEqual(mcpRuns * 3);
    expect(report.stats.mcpWrites).toBeLessThanOrEqual((mcpRuns + erred) * 3);
  });

  test("the long run's large payloads went to the store, and a history names every object there: no kill left an orphan (each write is content-addressed, so a repeat writes the same object)", () => {
    const longRuns = report.scenarios.filter((s) => s.row.name === 'agent-long').length;
    expect(longRuns).toBeGreaterThan(0);
    expect(report.stats.storedRuns).toBeGreaterThanOrEqual(longRuns);
    expect(report.stats.storeOrphans).toBe(0);
  });

  test('the two simplest designs do duplicate, and markers without keys do ask', () => {
    expect(rows.turn.dups).toBeGreaterThan(0);
    expect(rows.reply.dups).toBeGreaterThan(0);
    expect(rows.markers.asks).toBeGreaterThan(0);
    expect(rows['agent-keyless'].asks).toBeGreaterThan(0);
  });

  test('no approval is requested twice, even when the worker dies while a person decides', () => {
    expect(rows['agent-approval'].approvalsExtra).toBe(0);
    const killedWhileWaiting = report.scenarios.filter(
      (s) => s.row.name === 'agent-approval' && s.landed.some((p) => p.name === 'approval.pending'),
    );
    expect(killedWhileWaiting.length).toBeGreaterThan(0);
  });

  test('the recorded points include every boundary the issue names', () => {
    const names = new Set(
      Object.values(report.points)
        .flat()
        .map((p) => p.name),
    );
    for (const n of [
      'model.returned',
      'tool.started',
      'tracker.accepted',
      'tool.returned',
      'workflow.decided',
      'approval.pending',
      'turn.returned',
    ]) {
      expect(names).toContain(n);
    }
  });
});

describe('a workflow of your own, killed once and twice', () => {
  test('the fixed order example (examples/order/fixed.config.ts): no duplicate and nothing missing, whichever two points the worker dies at', async () => {
    const order = await runSweep({ suite: configSuite(path.join(ROOT, 'examples', 'order', 'fixed.config.ts')) });
    expect(order.scenarios.filter((s) => s.error).map((s) => `${s.id}: ${s.error}`)).toEqual([]);
    expect(order.rows[0]).toMatchObject({ once: 14, withDups: 0, dups: 0, missing: 0, errors: 0 });
    expect(order.rows[0].twice).toBeGreaterThan(100);
  }, 600_000);

  test('a row of your own whose Temporal server dies with the worker (serverDies, test/fixtures/configs/order-server.config.ts): the same, on the restarted server', async () => {
    // The manager's approval (the run's first point) reaches each run on that server too.
    const order = await runSweep({
      suite: configSuite(path.join(ROOT, 'test', 'fixtures', 'configs', 'order-server.config.ts')),
    });
    expect(order.scenarios.filter((s) => s.error).map((s) => `${s.id}: ${s.error}`)).toEqual([]);
    expect(order.rows[0]).toMatchObject({
      label: 'order, fixed: server and worker die',
      once: 14,
      withDups: 0,
      dups: 0,
      missing: 0,
      errors: 0,
    });
    expect(order.rows[0].twice).toBeGreaterThan(100);
    expect(order.temporalKills).toBeGreaterThanOrEqual(3); // a round per kill: once, then twice's two
  }, 600_000);
});
