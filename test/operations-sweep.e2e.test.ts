// What happens to a run at a point (a row's run fault: sweep/faults/), once its worker is dead: a person resets it,
// or it fails and its retry policy starts it over, and a fresh worker runs the new run to its end; or a
// person cancels or terminates it. Blind to earlier executions, the loop asks the model again and sends
// every call again: a model that changes its mind leaves a write no saved reply accounts for, and a
// keyless receiver gets the call twice. Reading them, it takes the earlier reply and the earlier
// attempt's outcome. A stopped run leaves the rest of its reply half done.
import { agentSuite } from '../agent-sweep/agent-suite';
import { runSweep, type SweepReport } from '../sweep/engine/passes';
import { selectRows } from '../agent-sweep/rows';

let once: SweepReport['scenarios'];
const scenario = (name: string) => once.find((s) => s.row.name === name)!;
const outcome = (name: string) => scenario(name).outcome!;
/** What a scenario landed on and what was done to its run, event ids written N. */
const done = (name: string) => [
  scenario(name).landed.map((p) => `${p.name} ${p.detail}`),
  scenario(name).operations?.map((o) => o.replace(/\d+/, 'N')),
];

// 8: tracker.accepted of the first issue (after the tools' listing and the first turn), in every row.
beforeAll(async () => {
  const report = await runSweep({
    suite: agentSuite(
      selectRows(
        'agent-blind-reset-first-fickle,agent-reset-first,agent-reset-first-fickle,agent-reset-last-fickle,' +
          'agent-keyless-lookup-blind-retried,agent-retried,agent-retried-fickle,agent-keyless-lookup-retried,' +
          'agent-cancelled,agent-terminated',
      ),
    ),
    scenario: '8',
    reruns: 0,
  });
  expect(report.scenarios.filter((s) => s.error).map((s) => `${s.id}: ${s.error}`)).toEqual([]);
  once = report.scenarios.filter((s) => s.pass === 'once');
}, 180_000);

const ACCEPTED = ['tracker.accepted create_issue call_create_1'];

describe('operations at a point: once the tracker accepted the first issue', () => {
  test('reset: blind, a model that changes its mind orphans that issue; reading the earlier run, the loop takes its reply and repeats nothing', () => {
    expect(done('agent-blind-reset-first-fickle')).toEqual([ACCEPTED, ['reset to event N (first-task)']]);
    expect(done('agent-reset-first')).toEqual([ACCEPTED, ['reset to event N (first-task)']]);
    expect(done('agent-reset-first-fickle')).toEqual([ACCEPTED, ['reset to event N (first-task)']]);
    expect(done('agent-reset-last-fickle')).toEqual([ACCEPTED, ['reset to event N (last-task)']]);
    // Asked again: other calls, new ids, new keys, and the first issue is a write no reply in history accounts for.
    expect(outcome('agent-blind-reset-first-fickle')).toMatchObject({ dups: 0, missing: 0, orphans: 1, calls: 4 });
    // The earlier run's reply to the same conversation: the same call ids, the same keys, no model call paid twice.
    for (const name of ['agent-reset-first', 'agent-reset-first-fickle', 'agent-reset-last-fickle'])
      expect([name, outcome(name)]).toEqual([
        name,
        expect.objectContaining({ dups: 0, missing: 0, orphans: 0, calls: 3 }),
      ]);
  });

  test('the run fails and is retried from its input: blind, a keyless receiver gets the issue twice; reading the earlier run, nothing twice', () => {
    for (const name of ['agent-keyless-lookup-blind-retried', 'agent-retried', 'agent-retried-fickle'])
      expect(done(name)).toEqual([ACCEPTED, ['failed for its retry policy']]);
    // Blind, the new run knows of no unknown outcome, so it looks nothing up and sends the call again.
    expect(outcome('agent-keyless-lookup-blind-retried')).toMatchObject({ dups: 1, missing: 0, calls: 4 });
    // The earlier attempt's outcome is unknown: the ladder asks the tracker, which has the issue.
    for (const name of ['agent-retried', 'agent-retried-fickle', 'agent-keyless-lookup-retried'])
      expect([name, outcome(name)]).toEqual([
        name,
        expect.objectContaining({ dups: 0, missing: 0, orphans: 0, calls: 3 }),
      ]);
  });

  test('a person cancels or terminates the run: the first issue stays, the second is never filed, and nothing is missing or twice', () => {
    expect(done('agent-cancelled')).toEqual([ACCEPTED, ['cancelled']]);
    expect(done('agent-terminated')).toEqual([ACCEPTED, ['terminated']]);
    for (const name of ['agent-cancelled', 'agent-terminated']) {
      // The reply in history asked for two issues: the second is what the stop left half done.
      expect([name, outcome(name)]).toEqual([
        name,
        expect.objectContaining({ dups: 0, missing: 0, orphans: 0, halfDone: 1 }),
      ]);
      expect([name, scenario(name).end, scenario(name).otherEnd]).toEqual([
        name,
        name.replace('agent-', ''),
        undefined,
      ]);
    }
  });
});
