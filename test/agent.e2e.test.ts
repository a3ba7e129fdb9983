// The agent loop end to end: a real dev server, tracker and model, the reply in history before any tool runs, keys on every write.
import { randomUUID } from 'node:crypto';
import type { agentWorkflow } from '../workflows/agent';
import { callDigest } from '../workflows/digest';
import { approveSignal, pendingQuery, type ApproveSignal } from '../workflows/signals';
import { eventually, startRun, triageInput } from './helpers/runs';
import { modelCalls, useSystemWithWorker } from './helpers/system';

const TASK_QUEUE = 'agent-e2e';
const system = useSystemWithWorker(TASK_QUEUE);

describe('agent loop on a real Temporal dev server, tracker and model server', () => {
  test('triage run: exactly 2 issues, 1 comment, 1 search and 3 model calls, every call settled clean', async () => {
    const { handle, runId } = await startRun(system().env.client, TASK_QUEUE, { repo: 'e2e-triage' });
    const result = await handle.result();

    expect(system().trackers.keyed.store.counts('e2e-triage')).toEqual({ issues: 2, comments: 1 });
    expect(await modelCalls(system(), runId)).toBe(3);
    expect(result.turns).toBe(3);
    expect(result.calls.map((c) => [c.tool, c.callId, c.status, c.rung, c.attempts])).toEqual([
      ['create_issue', 'call_create_1', 'done', 'clean', 1],
      ['create_issue', 'call_create_2', 'done', 'clean', 1],
      ['comment_on_issue', 'call_comment_1', 'done', 'clean', 1],
      ['search_issues', 'call_search_1', 'done', 'clean', 1],
    ]);
    expect(result.questionsAsked).toBe(0);
    expect(result.answer).toBe(
      'Triage done. Filed #1 and #2, commented on #1; a search for "checkout" finds 2 issue(s).',
    );

    // The model's reply, with its call ids, is in history before the first tool activity is scheduled.
    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    const firstModelDone = events.findIndex((e) => e.activityTaskCompletedEventAttributes);
    const firstToolScheduled = events.findIndex(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
    );
    expect(firstModelDone).toBeGreaterThan(0);
    expect(firstToolScheduled).toBeGreaterThan(firstModelDone);

    // Every effect carries key(runId, callId), written into what it created.
    const { key } = await import('../common/key');
    const issue = (await (await fetch(`${system().trackers.keyed.url}/repos/e2e-triage/issues/1`)).json()) as {
      body: string;
    };
    expect(issue.body).toContain(`idempotency-key: ${key(runId, 'call_create_1')}`);
    const lookup = await fetch(`${system().trackers.keyed.url}/idempotency/${key(runId, 'call_create_1')}`);
    expect(lookup.status).toBe(200);
  });

  test('approval gate: the first create is approved (twice, running once), the second denied; the model hears the denial', async () => {
    const { handle } = await startRun(system().env.client, TASK_QUEUE, {
      repo: 'e2e-approval',
      approve: ['create_issue'],
    });

    const first = await eventually(async () => (await handle.query(pendingQuery)).approvals[0]);
    expect(first).toMatchObject({ callId: 'call_create_1', tool: 'create_issue' });
    await handle.signal(approveSignal, { callId: 'call_create_1', approved: true, by: 'alice' });
    await handle.signal(approveSignal, { callId: 'call_create_1', approved: true, by: 'alice' });

    const second = await eventually(async () =>
      (await handle.query(pendingQuery)).approvals.find((a) => a.callId === 'call_create_2'),
    );
    expect(second.tool).toBe('create_issue');
    await handle.signal(approveSignal, {
      callId: 'call_create_2',
      approved: false,
      by: 'bob',
      reason: 'duplicate of an alert we have',
    });

    const result = await handle.result();
    expect(system().trackers.keyed.store.counts('e2e-approval')).toEqual({ issues: 1, comments: 1 });
    expect(result.approvalsRequested).toBe(2);
    const denied = result.calls.find((c) => c.callId === 'call_create_2')!;
    expect(denied.status).toBe('denied');
    expect(denied.result).toBe('denied by bob: duplicate of an alert we have');
    expect(result.calls.find((c) => c.callId === 'call_create_1')!.attempts).toBe(1);
    expect(result.answer).toMatch(/^Triage done. Filed #1, commented on #1/);
  });

  test('a run that reaches maxTurns without a final answer fails with TooManyTurns, its effects kept', async () => {
    const { handle } = await startRun(system().env.client, TASK_QUEUE, { repo: 'e2e-turns', maxTurns: 2 });
    await expect(handle.result()).rejects.toMatchObject({ cause: { type: 'TooManyTurns' } });
    expect(system().trackers.keyed.store.counts('e2e-turns')).toEqual({ issues: 2, comments: 1 });
  });

  test('a long conversation continues as new between turns: the same calls, keys and answer, and what the gates remember carried over', async () => {
    // One turn per run: three runs in the chain. An approval for the comment, sent with the start, is
    // remembered by the first run and must reach the second, where the comment is made. Sent before
    // the comment waits, it counts only because it names the digest of exactly that comment.
    const runId = randomUUID();
    const input = {
      runId,
      task: 'Checkout returns 500 when a coupon is applied',
      ...triageInput({ repo: 'e2e-chain', turnsPerRun: 1, approve: ['comment_on_issue'] }),
    };
    const handle = await system().env.client.workflow.signalWithStart<typeof agentWorkflow, [ApproveSignal]>(
      'agentWorkflow',
      {
        taskQueue: TASK_QUEUE,
        workflowId: `triage-${runId}`,
        args: [input],
        signal: approveSignal,
        signalArgs: [
          {
            callId: 'call_comment_1',
            approved: true,
            by: 'judy',
            digest: callDigest('comment_on_issue', {
              number: 1,
              body: 'Triage: reproduced with coupon SPRING10; severity high.',
            }),
          },
        ],
      },
    );
    const result = await handle.result();

    expect(system().trackers.keyed.store.counts('e2e-chain')).toEqual({ issues: 2, comments: 1 });
    expect(result.turns).toBe(3);
    expect(result.calls.map((c) => [c.callId, c.status, c.rung])).toEqual([
      ['call_create_1', 'done', 'clean'],
      ['call_create_2', 'done', 'clean'],
      ['call_comment_1', 'done', 'clean'],
      ['call_search_1', 'done', 'clean'],
    ]);
    expect(result.approvalsRequested).toBe(1);
    expect(result.answer).toMatch(/^Triage done. Filed #1 and #2, commented on #1/);
    expect(await modelCalls(system(), runId)).toBe(3);
    // Three runs: the first two ended by continuing as new.
    const first = system().env.client.workflow.getHandle(handle.workflowId, handle.signaledRunId);
    const firstEvents = (await first.fetchHistory()).events ?? [];
    expect(firstEvents.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    // Every write still carries key(runId, callId): the run id is the input's, not Temporal's.
    const { key } = await import('../common/key');
    expect((await fetch(`${system().trackers.keyed.url}/idempotency/${key(runId, 'call_comment_1')}`)).status).toBe(
      200,
    );
  });

  test('the run learns how long the tracker keeps keys from its answers, and bounds keyed repeats by it', async () => {
    // A tracker that keeps keys for a minute: after its first answer, no keyed call of the run may be
    // retried by Temporal later than the key lives (less a tenth), whatever the run's setting says.
    const { buildTracker } = await import('../tracker/app');
    const { Store } = await import('../tracker/store');
    const store = new Store(':memory:');
    const shortKeys = buildTracker({ store, keyTtlMs: 60_000 });
    const url = await shortKeys.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { handle } = await startRun(system().env.client, TASK_QUEUE, { repo: 'e2e-retention', trackerUrl: url });
      await handle.result();
      const events = (await handle.fetchHistory()).events ?? [];
      const bound = (callId: string) => {
        const scheduled = events.find((e) =>
          (e.activityTaskScheduledEventAttributes?.input?.payloads?.[0]?.data?.toString() ?? '').includes(
            `"callId":"${callId}"`,
          ),
        );
        return Number(scheduled?.activityTaskScheduledEventAttributes?.scheduleToCloseTimeout?.seconds ?? 0);
      };
      expect(bound('call_create_1')).toBe(23 * 3600); // nothing learned yet: 24 h, less an hour
      expect(bound('call_create_2')).toBe(54); // learned from the first answer: 60 s, less a tenth
      expect(store.counts('e2e-retention')).toEqual({ issues: 2, comments: 1 });
    } finally {
      await shortKeys.close();
      store.close();
    }
  });
});
