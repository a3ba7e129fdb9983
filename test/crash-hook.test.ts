// The worker's crash hook (sweep/worker/crash-worker.ts) without a server: what it counts and reports,
// and the setup points it passes uncounted, named as the engine names them.
import { CANCEL_SEEN_MARK, crashPoint, FAILED_FOR_RETRY_MARK, setCrashHook } from '../common/crash-points';
import { installCrashHook, type AttemptSeen } from '../sweep/worker/crash-worker';
import { LINE_PREFIX, pointKey, samePointForEveryRun, type CrashEvent } from '../sweep/worker/line-protocol';

/** Runs `body` with the hook installed, and returns the events the worker printed meanwhile. */
async function eventsOf(plan: Parameters<typeof installCrashHook>[0], body: () => Promise<void>) {
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    installCrashHook(plan);
    await body();
  } finally {
    write.mockRestore();
    setCrashHook(null);
  }
  return lines
    .filter((l) => l.startsWith(LINE_PREFIX))
    .map((l) => JSON.parse(l.slice(LINE_PREFIX.length)) as CrashEvent);
}

const ids = { workflowId: 'sweep-row-once-3-ab12cd34', runId: 'ab12cd34-5678', tag: 'row-once-3' };

const never = () => new Promise<never>(() => {});

describe("the worker's crash hook", () => {
  test('passes a setup point uncounted whatever run ids its detail carries, and counts the rest from 1', async () => {
    // The engine names the first clean run's setup points with that run's ids; this run has its own.
    const first = { workflowId: 'sweep-row-clean-1-00000000', runId: '00000000-0000', tag: 'row-clean-1' };
    const setup = [
      { name: 'http.accepted', detail: `POST 127.0.0.1 /session/${first.tag}` },
      { name: 'http.accepted', detail: `GET 127.0.0.1 /token?run=${first.runId}&wf=${first.workflowId}` },
    ].map((p) => pointKey(samePointForEveryRun(p, first)));
    const events = await eventsOf(
      { targets: {}, uncounted: { [ids.workflowId]: { ids, points: setup } } },
      async () => {
        const at = (name: string, detail: string) => crashPoint(name, { workflowId: ids.workflowId, detail });
        await at('http.accepted', `POST 127.0.0.1 /session/${ids.tag}`);
        await at('http.accepted', `GET 127.0.0.1 /token?run=${ids.runId}&wf=${ids.workflowId}`);
        await at('http.accepted', `POST 127.0.0.1 /mail/${ids.tag}`);
      },
    );
    expect(events).toEqual([
      {
        type: 'point',
        workflowId: ids.workflowId,
        index: 1,
        name: 'http.accepted',
        detail: `POST 127.0.0.1 /mail/${ids.tag}`,
      },
    ]);
  });

  test('counts the same points for a run with no setup named', async () => {
    const events = await eventsOf({ targets: {} }, async () => {
      await crashPoint('http.accepted', { workflowId: ids.workflowId, detail: `POST 127.0.0.1 /session/${ids.tag}` });
      await crashPoint('http.accepted', { workflowId: ids.workflowId, detail: `POST 127.0.0.1 /mail/${ids.tag}` });
    });
    expect(events.map((e) => e.type === 'point' && e.index)).toEqual([1, 2]);
  });
  test('a run the engine failed for its retry policy: its failed execution counts no point and acts on nothing more; its retry counts from 1', async () => {
    const held: string[] = [];
    const events = await eventsOf({ targets: {}, operated: { [ids.workflowId]: 'retry' } }, async () => {
      const at = (name: string, execution: string, fromWorkflow = false) => {
        const reached = crashPoint(name, { workflowId: ids.workflowId, detail: name, execution, fromWorkflow });
        // A point that holds never settles: the activity there does nothing more.
        return Promise.race([reached.then(() => 'passed'), new Promise((r) => setTimeout(() => r('held'), 20))]).then(
          (how) => how === 'held' && held.push(`${execution} ${name}`),
        );
      };
      // Before the mark, every point is the failed execution's (its activity timed out and was retried here).
      await at('tool.started', 'run-1');
      await at('workflow.decided', 'run-1', true);
      await at(FAILED_FOR_RETRY_MARK, 'run-1', true);
      await at('workflow.decided', 'run-1', true);
      // The retry, and a late activity of the failed execution beside it.
      await at('workflow.decided', 'run-2', true);
      await at('tool.started', 'run-1');
      await at('tool.started', 'run-2');
    });
    expect(held).toEqual(['run-1 tool.started', 'run-1 tool.started']);
    expect(events.map((e) => e.type === 'point' && [e.index, e.name])).toEqual([
      [1, 'workflow.decided'],
      [2, 'tool.started'],
    ]);
  });

  test('a run the engine cancelled: nothing of it acts until it has seen the cancel; then its clean-up counts as usual', async () => {
    const held: string[] = [];
    const events = await eventsOf({ targets: {}, operated: { [ids.workflowId]: 'cancel' } }, async () => {
      const at = (name: string, fromWorkflow = false) => {
        const reached = crashPoint(name, {
          workflowId: ids.workflowId,
          detail: name,
          execution: 'run-1',
          fromWorkflow,
        });
        return Promise.race([reached.then(() => 'passed'), new Promise((r) => setTimeout(() => r('held'), 20))]).then(
          (how) => how === 'held' && held.push(name),
        );
      };
      // The dead worker's model call, tried again here before the run saw the cancel.
      await at('model.started');
      await at(CANCEL_SEEN_MARK, true);
      await at('workflow.decided', true);
      await at('cleanup.started');
    });
    expect(held).toEqual(['model.started']);
    expect(events.map((e) => e.type === 'point' && [e.index, e.name])).toEqual([
      [1, 'workflow.decided'],
      [2, 'cleanup.started'],
    ]);
  });

  test("a cancelled run's call scheduled before it saw the cancel waits for the server's answer; one scheduled after does not", async () => {
    const asked: string[] = [];
    const answers = new Map<string, (answer: 'cancelled' | 'runs') => void>();
    let attempt: AttemptSeen | undefined;
    const view = {
      attempt: () => attempt,
      cancelAnswerOf: (workflowId: string, activityId: string) => {
        asked.push(activityId);
        return new Promise<'cancelled' | 'runs'>((resolve) => answers.set(activityId, resolve));
      },
      abandoned: () => Promise.resolve(false),
    };
    const outcomes: Record<string, Promise<string>> = {};
    const lines: string[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      installCrashHook({ targets: {}, operated: { [ids.workflowId]: 'cancel' } }, view);
      const at = (name: string, detail: string, fromWorkflow = false) =>
        crashPoint(name, { workflowId: ids.workflowId, detail, execution: 'run-1', fromWorkflow }).then(() => 'passed');
      const tick = () => new Promise((r) => setTimeout(r, 20));
      const before = Date.now() - 5_000;
      await at(CANCEL_SEEN_MARK, '', true);
      // The dead worker's model call and its write, tried again after the mark, before the answer.
      attempt = {
        activityId: '1',
        activityType: 'callModel',
        scheduledAtMs: before,
        attempt: 2,
        deadlineMs: Date.now() + 4_000,
        startedAtMs: Date.now(),
      };
      outcomes.model = at('model.started', 'turn 1');
      attempt = {
        activityId: '2',
        activityType: 'runTool',
        scheduledAtMs: before,
        attempt: 2,
        deadlineMs: Date.now() + 4_000,
        startedAtMs: Date.now(),
      };
      outcomes.write = at('tool.started', 'create_issue');
      await tick();
      expect(asked).toEqual(['1', '2']);
      // The server asked to cancel the model call: it never acts. It left the write running (a clean-up waits for it).
      answers.get('1')!('cancelled');
      answers.get('2')!('runs');
      await outcomes.write;
      // A clean-up call scheduled after the run saw the cancel asks nothing.
      attempt = {
        activityId: '3',
        activityType: 'runTool',
        scheduledAtMs: Date.now() + 1,
        attempt: 1,
        deadlineMs: Date.now() + 4_000,
        startedAtMs: Date.now(),
      };
      await at('cleanup.started', 'undo');
      expect(asked).toEqual(['1', '2']);
      expect(await Promise.race([outcomes.model, tick().then(() => 'held')])).toBe('held');
    } finally {
      write.mockRestore();
      setCrashHook(null);
    }
    const events = lines
      .filter((l) => l.startsWith(LINE_PREFIX))
      .map((l) => JSON.parse(l.slice(LINE_PREFIX.length)) as CrashEvent);
    expect(events.map((e) => e.type === 'point' && [e.index, e.name])).toEqual([
      [1, 'tool.started'],
      [2, 'cleanup.started'],
    ]);
  });

  test("an attempt the worker starts after it parked the run (the parked attempt's retry) is reported, holds, and is no point; one already running at the park is not reported", async () => {
    let attempt: AttemptSeen | undefined;
    const view = { attempt: () => attempt, cancelAnswerOf: () => never(), abandoned: () => Promise.resolve(false) };
    const lines: string[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const held: string[] = [];
    try {
      installCrashHook({ targets: { [ids.workflowId]: { index: 2 } } }, view);
      const at = (name: string) =>
        Promise.race([
          crashPoint(name, { workflowId: ids.workflowId, detail: 'call_1' }).then(() => 'passed'),
          new Promise((r) => setTimeout(() => r('held'), 20)),
        ]).then((how) => how === 'held' && held.push(name));
      const started = Date.now() - 1_000;
      attempt = {
        activityId: '7',
        activityType: 'lookupCall',
        scheduledAtMs: started,
        attempt: 1,
        deadlineMs: started + 4_000,
        startedAtMs: started,
      };
      await at('lookup.started');
      // The target: the run parks here.
      await at('lookup.returned');
      // A call that was already running when the run parked reaches its next point: held, not reported.
      attempt = {
        activityId: '8',
        activityType: 'runTool',
        scheduledAtMs: started,
        attempt: 1,
        deadlineMs: started + 4_000,
        startedAtMs: started,
      };
      await at('tool.started');
      // The parked attempt timed out; the server hands attempt 2 to this same process.
      attempt = {
        activityId: '7',
        activityType: 'lookupCall',
        scheduledAtMs: started,
        attempt: 2,
        deadlineMs: Date.now() + 4_000,
        startedAtMs: Date.now(),
      };
      await at('lookup.started');
    } finally {
      write.mockRestore();
      setCrashHook(null);
    }
    expect(held).toEqual(['lookup.returned', 'tool.started', 'lookup.started']);
    const events = lines
      .filter((l) => l.startsWith(LINE_PREFIX))
      .map((l) => JSON.parse(l.slice(LINE_PREFIX.length)) as CrashEvent);
    expect(events.map((e) => e.type)).toEqual(['point', 'parked', 'taken-while-parked']);
    expect(events[2]).toEqual({
      type: 'taken-while-parked',
      workflowId: ids.workflowId,
      name: 'lookup.started',
      detail: 'call_1',
      activityId: '7',
      activityType: 'lookupCall',
      attempt: 2,
    });
  });

  test('the marks are never points, in a run the engine did nothing to', async () => {
    const events = await eventsOf({ targets: {} }, async () => {
      await crashPoint(CANCEL_SEEN_MARK, { workflowId: ids.workflowId, detail: '', fromWorkflow: true });
      await crashPoint(FAILED_FOR_RETRY_MARK, { workflowId: ids.workflowId, detail: '', fromWorkflow: true });
      await crashPoint('workflow.decided', { workflowId: ids.workflowId, detail: 'x', fromWorkflow: true });
    });
    expect(events.map((e) => e.type === 'point' && [e.index, e.name])).toEqual([[1, 'workflow.decided']]);
  });
});
