// The resolution ladder with real processes: a worker SIGKILLed at chosen points, each rung settling the call.
import { callDigest } from '../workflows/digest';
import { approveSignal, pendingQuery, resolveSignal } from '../workflows/signals';
import { SWEEP_TIMEOUTS } from '../agent-sweep/timeouts';
import { SWEEP_WORKFLOW_TASK_TIMEOUT } from '../sweep/engine/timeouts';
import type { KillTarget } from '../sweep/worker/line-protocol';
import { eventually, startRun, type TriageRunInput } from './helpers/runs';
import { modelCalls, startSystem, startWorkerChild, type System, type WorkerChild } from './helpers/system';

let system: System;
const children: WorkerChild[] = [];

beforeAll(async () => {
  system = await startSystem();
}, 120_000);

afterAll(async () => {
  for (const c of children) await c.kill();
  await system?.close();
});

/**
 * Starts a run on its own task queue, with a worker child process that parks the run at `target`;
 * waits until the worker reports it parked there, SIGKILLs it, and starts a fresh worker.
 */
async function killAt(
  name: string,
  input: TriageRunInput,
  target: KillTarget,
  beforeRestart?: (h: Awaited<ReturnType<typeof startRun>>['handle']) => Promise<void>,
) {
  const taskQueue = `ladder-${name}`;
  const { handle, runId } = await startRun(
    system.env.client,
    taskQueue,
    { timeouts: SWEEP_TIMEOUTS, ...input },
    SWEEP_WORKFLOW_TASK_TIMEOUT,
  );
  const first = startWorkerChild(system, taskQueue, { targets: { [handle.workflowId]: target } });
  children.push(first);
  const parked = await first.waitForEvent((e) => e.type === 'parked');
  await first.kill('SIGKILL');
  expect(first.proc.signalCode).toBe('SIGKILL');
  if (beforeRestart) await beforeRestart(handle);
  const second = startWorkerChild(system, taskQueue);
  children.push(second);
  return { handle, runId, parked, second };
}

// The five runs are independent (a task queue and a repository each) and mostly wait on timeouts:
// they run at once. Jest runs the root beforeAll before concurrent tests start, and afterAll after.
describe('worker SIGKILLed mid-run: each rung of the resolution ladder', () => {
  test.concurrent(
    'keyed: worker killed after the tracker accepted create_issue; the retry carries the same key, one issue exists (rung repeat)',
    async () => {
      const { handle, runId, parked } = await killAt(
        'keyed',
        { repo: 'kill-keyed' },
        { name: 'tracker.accepted', detail: 'create_issue call_create_1' },
      );
      expect(parked).toMatchObject({ type: 'parked', name: 'tracker.accepted', detail: 'create_issue call_create_1' });
      // The tracker took the request before the kill.
      expect(system.trackers.keyed.store.counts('kill-keyed').issues).toBe(1);
      const result = await handle.result();
      expect(system.trackers.keyed.store.counts('kill-keyed')).toEqual({ issues: 2, comments: 1 });
      expect(result.rungs).toEqual({
        call_create_1: 'repeat',
        call_create_2: 'clean',
        call_comment_1: 'clean',
        call_search_1: 'clean',
      });
      expect(result.questionsAsked).toBe(0);
      expect(await modelCalls(system, runId)).toBe(3);
    },
  );

  test.concurrent(
    'keyless with lookup: killed after the tracker accepted create_issue; the search finds the key, no second issue (rung lookup)',
    async () => {
      const input = { repo: 'kill-lookup-hit', keyless: true, trackerUrl: system.trackers.keyless.url };
      const { handle } = await killAt('lookup-hit', input, {
        name: 'tracker.accepted',
        detail: 'create_issue call_create_2',
      });
      const result = await handle.result();
      expect(system.trackers.keyless.store.counts('kill-lookup-hit')).toEqual({ issues: 2, comments: 1 });
      expect(result.rungs.call_create_2).toBe('lookup');
      expect(result.questionsAsked).toBe(0);
    },
  );

  test.concurrent(
    'keyless with lookup: killed before create_issue sent anything; the lookup finds nothing and the call runs once (rung lookup)',
    async () => {
      const input = { repo: 'kill-lookup-miss', keyless: true, trackerUrl: system.trackers.keyless.url };
      const { handle } = await killAt('lookup-miss', input, {
        name: 'tool.started',
        detail: 'create_issue call_create_1',
      });
      expect(system.trackers.keyless.store.counts('kill-lookup-miss').issues).toBe(0);
      const result = await handle.result();
      expect(system.trackers.keyless.store.counts('kill-lookup-miss')).toEqual({ issues: 2, comments: 1 });
      expect(result.rungs.call_create_1).toBe('lookup');
      expect(result.calls.find((c) => c.callId === 'call_create_1')!.attempts).toBe(2);
    },
  );

  test.concurrent(
    'keyless without lookup: killed after the tracker accepted a comment; a person is asked, answers "it happened", no second comment (rung person)',
    async () => {
      const input = { repo: 'kill-person', keyless: true, lookup: false, trackerUrl: system.trackers.keyless.url };
      const { handle } = await killAt('person', input, {
        name: 'tracker.accepted',
        detail: 'comment_on_issue call_comment_1',
      });
      const question = await eventually(async () => (await handle.query(pendingQuery)).questions[0], 60_000);
      expect(question).toMatchObject({
        callId: 'call_comment_1',
        questionId: 'call_comment_1#1',
        tool: 'comment_on_issue',
      });
      // The person checks the tracker by hand, as the scripted person of the sweep does.
      expect(system.trackers.keyless.store.counts('kill-person').comments).toBe(1);
      // A second operator answers the same question the other way, right after: the run takes the
      // first answer and refuses the second, which must never be kept to answer a later question.
      await handle.signal(resolveSignal, { questionId: 'call_comment_1#1', happened: true, by: 'carol' });
      await handle.signal(resolveSignal, { questionId: 'call_comment_1#1', happened: false, by: 'dan' });
      const result = await handle.result();
      expect(system.trackers.keyless.store.counts('kill-person')).toEqual({ issues: 2, comments: 1 });
      expect(result.rungs.call_comment_1).toBe('person');
      expect(result.questionsAsked).toBe(1);
      expect((await handle.query(pendingQuery)).refusedAnswers).toEqual([
        { questionId: 'call_comment_1#1', by: 'dan', why: 'the question already has an answer' },
      ]);
    },
  );

  test.concurrent(
    'approval pending when the worker dies: the approval is signalled while no worker lives, is not lost, and the tool runs once',
    async () => {
      const input = { repo: 'kill-approval', approve: ['create_issue'] };
      // What the person was shown before the worker died: the call and the digest of its arguments.
      const digest = callDigest('create_issue', {
        title: 'Checkout returns 500 after applying a coupon',
        body: 'Reported by a user: Checkout returns 500 when a coupon is applied',
        labels: ['bug', 'checkout'],
      });
      const { handle } = await killAt(
        'approval',
        input,
        { name: 'approval.pending', detail: `create_issue call_create_1 ${digest}` },
        async (h) => {
          // The restarted run takes it before its call waits again: it counts because it names the digest.
          await h.signal(approveSignal, { callId: 'call_create_1', approved: true, by: 'dave', digest });
        },
      );
      const second = await eventually(
        async () => (await handle.query(pendingQuery)).approvals.find((a) => a.callId === 'call_create_2'),
        60_000,
      );
      expect(second).toBeDefined();
      await handle.signal(approveSignal, { callId: 'call_create_2', approved: true, by: 'dave' });
      const result = await handle.result();
      expect(system.trackers.keyed.store.counts('kill-approval')).toEqual({ issues: 2, comments: 1 });
      expect(result.approvalsRequested).toBe(2);
      expect(result.calls.filter((c) => c.tool === 'create_issue').map((c) => c.attempts)).toEqual([1, 1]);
    },
  );
});
