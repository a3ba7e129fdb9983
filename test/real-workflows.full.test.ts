// Workflows written as users write them for production, swept unchanged (test:full, CI): an expense
// flow that retries for ever (a kill leaves it stuck) and a trip saga that fails by design, each naive
// and keyed; a helpdesk whose activities keep an MCP client and a token per worker process. Their
// tables are in docs/config.md.
import path from 'node:path';
import { configSuite } from '../sweep/config/config-suite';
import { formatTable } from '../sweep/report/table';
import { describeStuck } from '../sweep/judge/stuck';
import { runSweep, type SweepReport } from '../sweep/engine/passes';
import { ROOT } from './helpers/processes';

const failures = (r: SweepReport) => r.scenarios.filter((s) => s.error).map((s) => `${s.id}: ${s.error}`);

describe('production workflows, swept unchanged', () => {
  test('the expense flow with 5-minute timeouts and the default retry policy: a kill once the service acted leaves a run that can never finish, counted as stuck with its cause; with keys, none, killed once and twice', async () => {
    const expense = (name: string) => path.join(ROOT, 'examples', 'expense', `${name}.config.ts`);
    const naive = await runSweep({ suite: configSuite(expense('naive')), twice: false });
    expect(failures(naive)).toEqual([]);
    // The retry of a call the service made already is refused for good: "already exists" for the
    // expense, "COMPLETED -> COMPLETED" for the payment. Each such run is stuck, and ended by the sweep.
    const failing = naive.scenarios.flatMap((s) => (s.stuck?.kind === 'failing' ? [{ s, stuck: s.stuck }] : []));
    expect(failing.length).toBe(naive.scenarios.filter((s) => s.stuck).length);
    const stuck = failing.map(({ s, stuck: why }) => [
      `${s.landed[0].name} ${s.landed[0].detail}`,
      why.activity,
      why.failure,
    ]);
    expect(stuck).toEqual([
      [
        'http.accepted POST 127.0.0.1 /expenses',
        'createExpense',
        expect.stringMatching(/^400 expense .+ already exists$/),
      ],
      ['activity.returned createExpense', 'createExpense', expect.stringMatching(/^400 expense .+ already exists$/)],
      [
        'http.accepted POST 127.0.0.1 /expenses/{workflowId}/pay',
        'payment',
        '400 Invalid status transition COMPLETED -> COMPLETED',
      ],
      ['activity.returned payment', 'payment', '400 Invalid status transition COMPLETED -> COMPLETED'],
    ]);
    for (const { stuck: why } of failing) expect(why.attempt).toBeGreaterThanOrEqual(10);
    // A run stuck before its payment never paid: missing. The table shows the stuck column.
    expect(naive.rows[0]).toMatchObject({ once: 10, stuck: 4, missing: 2, dups: 0, errors: 0 });
    expect(formatTable(naive.rows).split('\n')).toEqual([
      'variant         once  twice  with dups  dups  missing  orphans  asks  calls+  appr+  stuck',
      'expense, naive    10      0          0     0        2        0     0       0      0      4',
    ]);

    const keyed = await runSweep({ suite: configSuite(expense('keyed')) });
    expect(failures(keyed)).toEqual([]);
    expect(keyed.rows[0]).toMatchObject({ once: 10, twice: 60, stuck: 0, missing: 0, dups: 0, errors: 0 });
  }, 600_000);

  test("the trip saga, which fails by design: its clean run's end is the expected one, a booking left standing is damage; with keys, none, killed once and twice", async () => {
    const trip = await runSweep({
      suite: configSuite(path.join(ROOT, 'examples', 'trip', 'naive.config.ts')),
      twice: false,
    });
    expect(failures(trip)).toEqual([]);
    // Every run failed as the clean run did (the airline declines; the car and hotel are cancelled).
    expect(new Set(trip.scenarios.map((s) => s.end))).toEqual(
      new Set(['failed: TripFailed: trip not booked (the airline declined); cancelled 2 booking(s)']),
    );
    // A booking retried after a kill once the service acted is booked twice; the saga cancels the
    // copy it heard of, and the other is left standing.
    expect(trip.rows[0]).toMatchObject({ once: 20, withDups: 4, dups: 4, missing: 4, otherEnds: 0, errors: 0 });

    const keyed = await runSweep({ suite: configSuite(path.join(ROOT, 'examples', 'trip', 'keyed.config.ts')) });
    expect(failures(keyed)).toEqual([]);
    expect(keyed.rows[0]).toMatchObject({ once: 20, twice: 223, dups: 0, missing: 0, otherEnds: 0, errors: 0 });
  }, 600_000);

  test("the helpdesk, with an MCP client and a mail token each kept by the worker process: the setup only a process's first run reaches is found by two clean runs and never counted, so every kill lands, killed once and twice", async () => {
    const report = await runSweep({ suite: configSuite(path.join(ROOT, 'examples', 'helpdesk', 'sweep.config.ts')) });
    expect(failures(report)).toEqual([]);
    const setup = [
      'http.accepted POST 127.0.0.1 /mcp initialize',
      'http.accepted POST 127.0.0.1 /mcp notifications/initialized',
      'http.accepted GET 127.0.0.1 /mcp',
      'http.accepted POST 127.0.0.1 /token',
    ];
    expect(report.notes).toContain(
      `helpdesk: ${setup.join(', ')}: reached only by the first run of a worker process (a connection or client it keeps); not counted and not killed at`,
    );
    // The run's own points: the tool call named by its JSON-RPC method and tool, the mail by its path.
    expect(report.points.helpdesk.map((p) => `${p.name} ${p.detail}`)).toEqual([
      'workflow.decided scheduleActivity',
      'activity.started openTicket',
      'http.accepted POST 127.0.0.1 /mcp tools/call open_ticket',
      'activity.returned openTicket',
      'workflow.decided scheduleActivity',
      'activity.started mailCustomer',
      'http.accepted POST 127.0.0.1 /mail',
      'activity.returned mailCustomer',
      'workflow.decided completeWorkflowExecution',
    ]);
    // No keys: a kill once a service acted (the tool call's answer, the mail's) makes it act again.
    expect(report.firstPass[0]).toMatchObject({ once: 9, withDups: 4, dups: 4, missing: 0, errors: 0 });
    expect(report.rows[0]).toMatchObject({ once: 9, twice: 51, missing: 0, errors: 0 });
  }, 600_000);

  test('a run that waits for a callback nothing will send (the service calls back once per order, and a retry got a new request id) is stuck, and named so', async () => {
    const report = await runSweep({
      suite: configSuite(path.join(ROOT, 'test', 'fixtures', 'configs', 'quote.config.ts')),
      twice: false,
    });
    expect(failures(report)).toEqual([]);
    // Killed once the service gave a request id, the retry gets another, whose callback never comes.
    const stuck = report.scenarios
      .filter((s) => s.stuck)
      .map((s) => [`${s.landed[0].name} ${s.landed[0].detail}`, s.stuck]);
    expect(stuck).toEqual([
      [
        'http.accepted POST 127.0.0.1 /quotes',
        { kind: 'waiting', quietSeconds: expect.any(Number), lastEvent: 'WorkflowTaskCompleted' },
      ],
      [
        'activity.returned requestQuote',
        { kind: 'waiting', quietSeconds: expect.any(Number), lastEvent: 'WorkflowTaskCompleted' },
      ],
    ]);
    expect(describeStuck(report.scenarios.find((s) => s.stuck)!.stuck!)).toBe(
      'waits with nothing in flight (no activity, timer, child or workflow task), 10 s and more after its last event (WorkflowTaskCompleted): only a signal could wake it, and none came',
    );
    // The order is never placed (missing); a kill once it was placed places it again (no keys).
    expect(report.rows[0]).toMatchObject({ once: 10, stuck: 2, missing: 2, dups: 2, errors: 0 });
  }, 600_000);

  test('a reminder due in two days sweeps in about a second a run (timers capped), and the mail service tells runs apart by the run header', async () => {
    const report = await runSweep({ suite: configSuite(path.join(ROOT, 'examples', 'reminder', 'sweep.config.ts')) });
    expect(failures(report)).toEqual([]);
    expect(report.points.reminder.map((p) => `${p.name} ${p.detail}`)).toEqual([
      'workflow.decided scheduleActivity',
      'activity.started openCase',
      'http.accepted POST 127.0.0.1 /cases',
      'activity.returned openCase',
      'workflow.waiting answered startTimer',
      'workflow.decided scheduleActivity',
      'activity.started mailReminder',
      'http.accepted POST 127.0.0.1 /mail',
      'activity.returned mailReminder',
      'workflow.decided completeWorkflowExecution',
    ]);
    // Every run is reminded: the two-day wait fired after 1 s. No keys: a kill once a service acted repeats it.
    expect(new Set(report.scenarios.map((s) => s.end))).toEqual(new Set(['completed']));
    expect(report.firstPass[0]).toMatchObject({ once: 10, withDups: 4, dups: 4, missing: 0, errors: 0 });
    expect(report.rows[0]).toMatchObject({ once: 10, missing: 0, errors: 0 });
    expect(report.notes[0]).toMatch(/, timers at most 1 s /);
  }, 600_000);

  test('the fixed order reset by a person at each point, to its last task and to its first: its keys come from the workflow and activity ids, which a reset keeps, so nothing is repeated', async () => {
    const report = await runSweep({
      suite: configSuite(path.join(ROOT, 'examples', 'order', 'reset.config.ts')),
      twice: false,
    });
    expect(failures(report)).toEqual([]);
    // Every run but the one killed before its first task completed was reset.
    for (const row of ['order-fixed-reset-last', 'order-fixed-reset-first']) {
      const ops = report.scenarios.filter((s) => s.row.name === row && s.pass === 'once').map((s) => s.operations);
      expect([row, ops.filter((o) => o?.[0]?.startsWith('reset to event')).length]).toEqual([row, ops.length - 1]);
    }
    expect(formatTable(report.rows).split('\n').slice(1)).toEqual([
      'order, keys the shop honours: reset to last     14      0          0     0        0        0     0       0      0',
      'order, keys the shop honours: reset to first    14      0          0     0        0        0     0       0      0',
    ]);
  }, 600_000);
});
