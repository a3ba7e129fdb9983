// A person resets the run at a point (SuiteRow.operation): the engine resets it once its worker is
// dead, and a fresh worker runs the new run to its end. The keyed loop repeats nothing when the model
// answers the same again; a model that changes its mind leaves a write no saved reply accounts for.
import { agentSuite } from '../sweep/agent/agent-suite';
import { runSweep } from '../sweep/engine/passes';
import { selectRows } from '../sweep/agent/rows';

describe('the sweep resets a run at a point', () => {
  test('reset to the first task once the tracker accepted the first issue: the model is asked again; a model that changes its mind orphans that issue', async () => {
    // 8: tracker.accepted of the first issue (after the tools' listing and the first turn).
    const report = await runSweep({
      suite: agentSuite(selectRows('agent-reset-first,agent-reset-first-fickle,agent-reset-last-fickle')),
      scenario: '8',
      reruns: 0,
    });
    expect(report.scenarios.filter((s) => s.error).map((s) => `${s.id}: ${s.error}`)).toEqual([]);
    const once = report.scenarios.filter((s) => s.pass === 'once');
    expect(
      once.map((s) => [
        s.row.name,
        s.landed.map((p) => `${p.name} ${p.detail}`),
        s.operations?.map((o) => o.replace(/\d+/, 'N')),
      ]),
    ).toEqual([
      ['agent-reset-first', ['tracker.accepted create_issue call_create_1'], ['reset to event N (first-task)']],
      ['agent-reset-first-fickle', ['tracker.accepted create_issue call_create_1'], ['reset to event N (first-task)']],
      ['agent-reset-last-fickle', ['tracker.accepted create_issue call_create_1'], ['reset to event N (last-task)']],
    ]);
    const outcome = (name: string) => once.find((s) => s.row.name === name)!.outcome!;
    // The same reply again: the same call ids, the same keys, and the tracker answers from its records.
    expect(outcome('agent-reset-first')).toMatchObject({ dups: 0, missing: 0, orphans: 0, calls: 4 });
    // Other calls: new ids, new keys, and the first issue is a write no reply in history accounts for.
    expect(outcome('agent-reset-first-fickle')).toMatchObject({ dups: 0, missing: 0, orphans: 1, calls: 4 });
    // A reset to the last task keeps the reply: nothing is asked again, nothing is orphaned.
    expect(outcome('agent-reset-last-fickle')).toMatchObject({ dups: 0, missing: 0, orphans: 0, calls: 3 });
  }, 180_000);
});
