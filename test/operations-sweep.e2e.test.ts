// What happens to a run at a point (SuiteRow.operation), once its worker is dead: a person resets it,
// or it fails and its retry policy starts it over, and a fresh worker runs the new run to its end; or a
// person cancels or terminates it. The keyed loop repeats nothing when the model answers the same
// again; a model that changes its mind leaves a write no saved reply accounts for; a keyless loop that
// starts over writes again; a stopped run leaves the rest of its reply half done.
import { agentSuite } from '../sweep/agent/agent-suite';
import { runSweep, type SweepReport } from '../sweep/engine/passes';
import { selectRows } from '../sweep/agent/rows';

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
        'agent-reset-first,agent-reset-first-fickle,agent-reset-last-fickle,' +
          'agent-retried,agent-retried-fickle,agent-keyless-lookup-retried,' +
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
  test('reset to the first task: the model is asked again; a model that changes its mind orphans that issue', () => {
    expect(done('agent-reset-first')).toEqual([ACCEPTED, ['reset to event N (first-task)']]);
    expect(done('agent-reset-first-fickle')).toEqual([ACCEPTED, ['reset to event N (first-task)']]);
    expect(done('agent-reset-last-fickle')).toEqual([ACCEPTED, ['reset to event N (last-task)']]);
    // The same reply again: the same call ids, the same keys, and the tracker answers from its records.
    expect(outcome('agent-reset-first')).toMatchObject({ dups: 0, missing: 0, orphans: 0, calls: 4 });
    // Other calls: new ids, new keys, and the first issue is a write no reply in history accounts for.
    expect(outcome('agent-reset-first-fickle')).toMatchObject({ dups: 0, missing: 0, orphans: 1, calls: 4 });
    // A reset to the last task keeps the reply: nothing is asked again, nothing is orphaned.
    expect(outcome('agent-reset-last-fickle')).toMatchObject({ dups: 0, missing: 0, orphans: 0, calls: 3 });
  });

  test('the run fails and is retried from its input: as a reset to the first task, and without keys the issue is filed twice', () => {
    for (const name of ['agent-retried', 'agent-retried-fickle', 'agent-keyless-lookup-retried'])
      expect(done(name)).toEqual([ACCEPTED, ['failed for its retry policy']]);
    expect(outcome('agent-retried')).toMatchObject({ dups: 0, missing: 0, orphans: 0, calls: 4 });
    expect(outcome('agent-retried-fickle')).toMatchObject({ dups: 0, missing: 0, orphans: 1, calls: 4 });
    // The keyless loop looks a call up only after an unknown outcome; a new run knows of none.
    expect(outcome('agent-keyless-lookup-retried')).toMatchObject({ dups: 1, missing: 0, calls: 4 });
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
