// Scenarios that erred run again as fresh runs, and what each one's last run did comes back in its place.
import { runAndRerun, type Rerun, type RerunContext } from '../sweep/engine/reruns';
import { newScenario, type RanScenario, type Scenario } from '../sweep/engine/scenario';
import { AGENT_ROWS } from '../agent-sweep/rows';

const [row] = AGENT_ROWS;

/**
 * A `run` that ends each scenario as `errorOf` says (by its label and how often that label ran) and
 * remembers every batch it was given.
 */
function fakeRuns(errorOf: (label: string, attempt: number) => string | undefined) {
  const batches: Scenario[][] = [];
  const runsOf = new Map<string, number>();
  const run: RerunContext['run'] = async (scenarios) => {
    batches.push([...scenarios]);
    return scenarios.map((s): RanScenario => {
      const attempt = (runsOf.get(s.label) ?? 0) + 1;
      runsOf.set(s.label, attempt);
      const error = errorOf(s.label, attempt);
      return Object.freeze({ ...s, landed: [], finalPoints: [], ...(error ? { error } : {}) });
    });
  };
  return { run, batches };
}

function context(run: RerunContext['run'], maxReruns = 2): RerunContext & { reruns: Rerun[] } {
  return { run, batchSize: 10, maxReruns, progress: () => {}, reruns: [] };
}

describe('running again what erred', () => {
  test('a scenario that erred runs again as a fresh run; its result takes its place, the plans are never written', async () => {
    const plans = ['1', '2', '3'].map((label) => newScenario(row, 'once', label, [{ index: Number(label) }], []));
    const frozen = plans.map((p) => JSON.stringify(p));
    const { run, batches } = fakeRuns((label, attempt) =>
      label === '2' && attempt === 1 ? 'kill 1 never landed' : undefined,
    );
    const ctx = context(run);
    const ran = await runAndRerun(plans, 'once', async (s) => s.error ?? null, ctx);

    expect(ran.map((s) => [s.label, s.error])).toEqual([
      ['1', undefined],
      ['2', undefined],
      ['3', undefined],
    ]);
    // The second run of `2` is a new run of the same plan: new ids, the same kills.
    expect(batches.map((b) => b.map((s) => s.label))).toEqual([['1', '2', '3'], ['2']]);
    expect(ran[1].workflowId).not.toBe(plans[1].workflowId);
    expect(ran[1].kills).toEqual(plans[1].kills);
    expect(ctx.reruns).toEqual([{ id: plans[1].id, attempt: 1, error: 'kill 1 never landed' }]);
    expect(plans.map((p) => JSON.stringify(p))).toEqual(frozen);
  });

  test('an error stands after the last re-run', async () => {
    const plans = [newScenario(row, 'once', '1', [{ index: 1 }], [])];
    const { run, batches } = fakeRuns(() => 'the run failed: boom');
    const ran = await runAndRerun(plans, 'once', async (s) => s.error ?? null, context(run, 2));
    expect(batches).toHaveLength(3);
    expect(ran[0].error).toBe('the run failed: boom');
  });

  test('a clean run runs again with its pair, the second still following the first', async () => {
    const first = newScenario(row, 'clean', 'run', [], []);
    const second = newScenario(row, 'clean', 'again', [], [], first);
    const { run, batches } = fakeRuns((label, attempt) => (label === 'again' && attempt === 1 ? 'late' : undefined));
    const ran = await runAndRerun([first, second], 'clean runs', async (s) => s.error ?? null, context(run));

    const [renewedFirst, renewedSecond] = batches[1];
    expect(batches[1].map((s) => s.label)).toEqual(['run', 'again']);
    expect(renewedFirst).not.toBe(first);
    expect(renewedSecond.after).toBe(renewedFirst);
    expect(ran.map((s) => s.workflowId)).toEqual([renewedFirst.workflowId, renewedSecond.workflowId]);
    expect(second.after).toBe(first);
  });
});
