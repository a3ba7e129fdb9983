// The sweep's harness on real processes: kills that land where recorded count, others are errors; a kill at workflow.decided.
import { agentGenerationEnv, agentSuiteOn } from '../agent-sweep/agent-suite';
import { TRIAGE_INSTRUCTIONS } from '../examples/triage/tools';
import { Generation } from '../sweep/engine/generation';
import { SWEEP_TIMEOUTS } from '../agent-sweep/timeouts';
import { SWEEP_WORKFLOW_TASK_TIMEOUT } from '../sweep/engine/timeouts';
import { eventually } from './helpers/runs';
import { newScenario } from '../sweep/engine/scenario';
import { runScenarios } from '../sweep/engine/lanes';
import { Timings } from '../sweep/engine/timings';
import { selectRows } from '../agent-sweep/rows';
import { startWorld, type World } from '../agent-sweep/world';

let world: World;
beforeAll(async () => {
  world = await startWorld();
}, 120_000);
afterAll(() => world?.close());

describe('the sweep harness checks its own kills', () => {
  test('a kill that lands where recorded counts; one that cannot land, or lands elsewhere, is an error, never a pass', async () => {
    const [agent] = selectRows('agent');
    const suite = agentSuiteOn(world, [agent], false);
    const options = {
      server: world.server,
      suite,
      batchSize: 10,
      lanes: 1,
      timings: new Timings(),
      progress: () => {},
      counter: { generations: 0, lanes: 0 },
    };

    const clean = newScenario(agent, 'clean', 'run', [], []);
    const [cleanRun] = await runScenarios([clean], options, 'clean');
    expect(cleanRun.error).toBeUndefined();
    const accepted = cleanRun.finalPoints.findIndex((p) => p.name === 'tracker.accepted');
    const point = cleanRun.finalPoints[accepted];
    expect(point).toMatchObject({ name: 'tracker.accepted', detail: 'create_issue call_create_1' });

    const good = newScenario(agent, 'once', 'good', [{ index: accepted + 1 }], [point]);
    const never = newScenario(agent, 'once', 'never', [{ index: 999 }], [point]);
    const elsewhere = newScenario(agent, 'once', 'elsewhere', [{ index: accepted + 2 }], [point]);
    const [goodRun, neverRun, elsewhereRun] = await runScenarios([good, never, elsewhere], options, 'once');

    expect(goodRun.error).toBeUndefined();
    // The plan is never written: what the run did comes back as a result of its own.
    expect(good).not.toHaveProperty('landed');
    expect(Object.isFrozen(goodRun)).toBe(true);
    expect(goodRun.landed).toEqual([point]);
    // Killed after the tracker took the request: the keyed retry replays it, and the run finishes clean.
    expect(goodRun.outcome).toMatchObject({ dups: 0, missing: 0, asks: 0, details: { issues: 2, comments: 1 } });
    // The server retries the dead attempt on its own: the restart's first point is the retry's start.
    expect(goodRun.finalPoints[0]).toMatchObject({ name: 'tool.started', detail: 'create_issue call_create_1' });

    expect(neverRun.error).toMatch(/^kill 1 never landed: the run ended before reaching \{"index":999\}/);
    expect(elsewhereRun.error).toBe(
      'kill 1 landed on tool.returned (create_issue call_create_1), expected tracker.accepted (create_issue call_create_1)',
    );
  });
});

describe('the SDK contract that workflow.decided relies on', () => {
  test('a worker killed at workflow.decided never reported the task: the command it decided is not in the history', async () => {
    // The crash point is a sink the worker awaits before it reports the workflow task. If a new SDK
    // stopped awaiting sinks, the task would reach the server before the kill, and 8 of the agent's
    // points would quietly become the same as the point after them. This fails if that ever happens.
    const [agent] = selectRows('agent');
    const s = newScenario(agent, 'once', 'decided', [], []);
    const taskQueue = `decided-self-test-${s.runId}`;
    const handle = await world.env.client.workflow.start('agentWorkflow', {
      taskQueue,
      workflowId: s.workflowId,
      workflowTaskTimeout: SWEEP_WORKFLOW_TASK_TIMEOUT,
      args: [
        agent.input({
          runId: s.runId,
          repo: s.tag,
          task: 'Checkout fails with a coupon',
          instructions: TRIAGE_INSTRUCTIONS,
          trackerUrl: world.trackers.keyed.url,
          timeouts: SWEEP_TIMEOUTS,
        }),
      ],
    });
    const first = new Generation(
      agentGenerationEnv(world, taskQueue),
      { targets: { [s.workflowId]: { name: 'workflow.decided' } } },
      `decided-${s.runId}`,
    );
    await first.ready;
    first.go();
    const parked = await eventually(async () => first.parked.get(s.workflowId));
    expect(parked).toMatchObject({ index: 1, name: 'workflow.decided', detail: 'scheduleActivity' });
    await first.kill();

    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toEqual([]);
    expect(events.filter((e) => e.workflowTaskCompletedEventAttributes)).toEqual([]);

    const last = new Generation(agentGenerationEnv(world, taskQueue), { targets: {} }, `decided-last-${s.runId}`);
    await last.ready;
    last.go();
    try {
      await expect(handle.result()).resolves.toMatchObject({ answer: expect.any(String) });
    } finally {
      await last.kill();
    }
  }, 60_000);
});
