// Signals and Updates from people and scripts against a live run: malformed ones are refused with a
// reason and change nothing, never wedge the run; an approval binds to the call's digest; an Update is
// answered at once, and a refused one leaves no event; and a property test sends random values as both
// signals, then the right answers, and finds exactly their effects.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ScriptedPerson } from '../agent-sweep/person';
import { Store } from '../tracker/store';
import { callDigest } from '../workflows/digest';
import { approveSignal, approveUpdate, pendingQuery, resolveSignal, resolveUpdate } from '../workflows/signals';
import type { agentWorkflow } from '../workflows/agent';
import { RefusedError, sendToRun } from '../clients/send-to-run';
import { eventually, startRun } from './helpers/runs';
import { useSystemWithWorker } from './helpers/system';

const TASK_QUEUE = 'signals-e2e';
const system = useSystemWithWorker(TASK_QUEUE);

/**
 * A proxy in front of the keyless tracker that loses the answer to a repo's first comment: it
 * forwards the request (or, for a repo in `dropped`, does not) and answers 502, so the call's outcome
 * is unknown and, with no key and no lookup, the run asks a person whether it happened.
 */
let proxy: Server;
let proxyUrl: string;
const dropped = new Set<string>();
const failedOnce = new Set<string>();
beforeAll(async () => {
  proxy = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const repo = /^\/repos\/([^/]+)\//.exec(req.url ?? '')?.[1] ?? '';
      const loseAnswer = req.method === 'POST' && /\/comments$/.test(req.url ?? '') && !failedOnce.has(repo);
      if (loseAnswer) failedOnce.add(repo);
      const forward = async () => {
        const headers = { ...req.headers } as Record<string, string>;
        delete headers.host;
        delete headers['content-length'];
        return fetch(`${system().trackers.keyless.url}${req.url}`, {
          method: req.method,
          headers,
          body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
        });
      };
      void (async () => {
        if (loseAnswer) {
          if (!dropped.has(repo)) await (await forward()).text();
          res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"bad_gateway"}');
          return;
        }
        const upstream = await forward();
        res.writeHead(upstream.status, Object.fromEntries(upstream.headers)).end(await upstream.text());
      })();
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => proxy?.close(() => r())));

type Handle = WorkflowHandle<typeof agentWorkflow>;

const waitingFor = (handle: Handle, callId: string) =>
  eventually(async () => (await handle.query(pendingQuery)).approvals.find((a) => a.callId === callId), 30_000);
const questionOpen = (handle: Handle) =>
  eventually(async () => (await handle.query(pendingQuery)).questions[0], 30_000);

let runs = 0;
/** A keyless run without lookup through the proxy, whose creates wait for approval. */
function startGatedRun(dropComment = false) {
  const repo = `signals-${++runs}`;
  if (dropComment) dropped.add(repo);
  return startRun(system().env.client, TASK_QUEUE, {
    repo,
    keyless: true,
    lookup: false,
    trackerUrl: proxyUrl,
    approve: ['create_issue'],
    timeouts: { toolMs: 5_000, retryInitialMs: 100 },
  }).then((r) => ({ ...r, repo }));
}

describe('malformed signals are refused with a reason and change nothing', () => {
  test('an approve or resolve with no input, or null, is refused; the run goes on and a right answer counts', async () => {
    const { handle, repo } = await startGatedRun();
    await waitingFor(handle, 'call_create_1');
    // What `temporal workflow signal --name approve` sends with no --input, and with --input null.
    await handle.signal('approve');
    await handle.signal('approve', null);
    await handle.signal('resolve');
    await handle.signal(approveSignal, { callId: 'call_create_1', approved: true, by: 'alice' });
    await waitingFor(handle, 'call_create_2');
    await handle.signal(approveSignal, { callId: 'call_create_2', approved: true, by: 'alice' });
    await questionOpen(handle);
    await handle.signal(resolveSignal, { questionId: 'call_comment_1#1', happened: true, by: 'alice' });
    await handle.result();
    expect(system().trackers.keyless.store.counts(repo)).toEqual({ issues: 2, comments: 1 });
    const pending = await handle.query(pendingQuery);
    expect(pending.refusedDecisions).toEqual([
      { callId: 'nothing', why: 'an approval must be a JSON object, not nothing' },
      { callId: 'nothing', why: 'an approval must be a JSON object, not null' },
    ]);
    expect(pending.refusedAnswers).toEqual([
      { questionId: 'nothing', why: 'an answer must be a JSON object, not nothing' },
    ]);
  });

  test('approved: "false" approves nothing, and happened: "false" settles nothing', async () => {
    const { handle, repo } = await startGatedRun(true);
    await waitingFor(handle, 'call_create_1');
    const stringly = { callId: 'call_create_1', approved: 'false', by: 'op', reason: 'do not file this' };
    await handle.signal('approve', stringly);
    await handle.signal(approveSignal, { callId: 'call_create_1', approved: true, by: 'op' });
    await waitingFor(handle, 'call_create_2');
    await handle.signal(approveSignal, { callId: 'call_create_2', approved: false, by: 'op' });
    // The comment was never forwarded: the truthful answer is "it did not happen", so the run sends it again.
    await questionOpen(handle);
    await handle.signal('resolve', { questionId: 'call_comment_1#1', happened: 'false', by: 'op' });
    await handle.signal(resolveSignal, { questionId: 'call_comment_1#1', happened: false, by: 'op' });
    const result = await handle.result();
    expect(system().trackers.keyless.store.counts(repo)).toEqual({ issues: 1, comments: 1 });
    expect(result.rungs.call_comment_1).toBe('person');
    const pending = await handle.query(pendingQuery);
    expect(pending.refusedDecisions).toEqual([
      { callId: 'call_create_1', by: 'op', why: 'approved must be true or false, not "false"' },
    ]);
    expect(pending.refusedAnswers).toEqual([
      { questionId: 'call_comment_1#1', by: 'op', why: 'happened must be true or false, not "false"' },
    ]);
  });
});

describe('an approval binds to the digest of the call it approves', () => {
  test('the request shows the digest; an approval naming another is refused, and the call waits on', async () => {
    const { handle, repo } = await startGatedRun();
    const item = await waitingFor(handle, 'call_create_1');
    const args = { ...(item.args as Record<string, unknown>) };
    expect(item.digest).toBe(callDigest('create_issue', args));
    const other = callDigest('create_issue', { ...args, title: 'something else' });
    await handle.signal(approveSignal, { callId: 'call_create_1', approved: true, by: 'eve', digest: other });
    // Refused, and the call still waits (a query answers after the signal is handled).
    const after = await handle.query(pendingQuery);
    expect(after.approvals.map((a) => a.callId)).toEqual(['call_create_1']);
    expect(after.refusedDecisions).toEqual([
      {
        callId: 'call_create_1',
        by: 'eve',
        why: `the decision names ${other}, but call_create_1 waits with create_issue ${item.digest}`,
      },
    ]);
    // The memo (what `npm run status` and `approve` read with no worker) carries the digest too.
    const { memo } = await handle.describe();
    expect((memo?.waiting as { approvals: Array<{ digest?: string }> }).approvals[0].digest).toBe(item.digest);
    await handle.signal(approveSignal, { callId: 'call_create_1', approved: true, by: 'alice', digest: item.digest });
    const second = await waitingFor(handle, 'call_create_2');
    await handle.signal(approveSignal, {
      callId: 'call_create_2',
      approved: false,
      by: 'alice',
      digest: second.digest,
    });
    await questionOpen(handle);
    await handle.signal(resolveSignal, { questionId: 'call_comment_1#1', happened: true, by: 'alice' });
    await handle.result();
    expect(system().trackers.keyless.store.counts(repo)).toEqual({ issues: 1, comments: 1 });
  });
});

/** The run's reason for refusing an Update (its validator's error), or a failure if it was taken. */
async function refusal(update: Promise<unknown>): Promise<string> {
  const err = await update.then(
    (taken) => new Error(`taken: ${JSON.stringify(taken)}`),
    (e: unknown) => e,
  );
  if (!(err instanceof WorkflowUpdateFailedError)) throw err;
  return err.cause?.message ?? err.message;
}

/** The Update events of a run's history (accepted, rejected, completed), by type. */
async function updateEvents(handle: Handle): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? [])
    .filter(
      (e) =>
        e.workflowExecutionUpdateAcceptedEventAttributes ||
        e.workflowExecutionUpdateCompletedEventAttributes ||
        e.workflowExecutionUpdateRejectedEventAttributes,
    )
    .map((e) =>
      e.workflowExecutionUpdateAcceptedEventAttributes
        ? 'accepted'
        : e.workflowExecutionUpdateCompletedEventAttributes
          ? 'completed'
          : 'rejected',
    );
}

describe('a decision or an answer by Update: taken or refused at once, a refusal leaving no event', () => {
  test('each reason to refuse a decision and an answer, then the right ones taken', async () => {
    const { handle, repo } = await startGatedRun();
    const item = await waitingFor(handle, 'call_create_1');
    const decide = (value: unknown) => handle.executeUpdate(approveUpdate, { args: [value as never] });
    const other = callDigest('create_issue', { ...(item.args as Record<string, unknown>), title: 'something else' });
    // Malformed, a digest of other arguments, a call that does not wait (with no digest): each refused.
    expect(await refusal(decide({ callId: 'call_create_1', approved: 'yes', by: 'eve' }))).toBe(
      'approved must be true or false, not "yes"',
    );
    expect(await refusal(decide(null))).toBe('an approval must be a JSON object, not null');
    expect(await refusal(decide({ callId: 'call_create_1', approved: true, by: 'eve', digest: other }))).toBe(
      `the decision names ${other}, but call_create_1 waits with create_issue ${item.digest}`,
    );
    expect(await refusal(decide({ callId: 'call_create_2', approved: true, by: 'eve' }))).toBe(
      'the call does not wait for a decision: one sent before it waits must name the digest of exactly that call',
    );
    // What the clients send with: a refusal is a RefusedError with the run's reason.
    const sent = sendToRun(system().env.client, handle, approveUpdate, approveSignal, {
      callId: 'call_create_1',
      approved: true,
      by: 'eve',
      digest: other,
    });
    await expect(sent).rejects.toThrow(RefusedError);
    await expect(sent).rejects.toThrow(
      /^refused: the decision names sha256:[0-9a-f]+, but call_create_1 waits with create_issue sha256:[0-9a-f]+; nothing changed$/,
    );
    expect(await updateEvents(handle)).toEqual([]);
    // The right decision is taken, and says so; the same decision again is refused, as already decided.
    expect(await decide({ callId: 'call_create_1', approved: true, by: 'alice', digest: item.digest })).toEqual({
      callId: 'call_create_1',
      approved: true,
      taken: 'decided',
    });
    expect(await refusal(decide({ callId: 'call_create_1', approved: true, by: 'alice' }))).toBe(
      'the call already has a decision',
    );
    const second = await waitingFor(handle, 'call_create_2');
    expect(await decide({ callId: 'call_create_2', approved: false, by: 'alice', digest: second.digest })).toEqual({
      callId: 'call_create_2',
      approved: false,
      taken: 'decided',
    });

    // The question: an answer to no question, a malformed one, refused; the right one taken.
    await questionOpen(handle);
    const answer = (value: unknown) => handle.executeUpdate(resolveUpdate, { args: [value as never] });
    expect(await refusal(answer({ questionId: 'call_comment_1#3', happened: true }))).toBe(
      'no such question was asked',
    );
    expect(await refusal(answer({ questionId: 'call_comment_1#1', happened: 'no' }))).toBe(
      'happened must be true or false, not "no"',
    );
    expect(await answer({ questionId: 'call_comment_1#1', happened: true, by: 'alice' })).toEqual({
      questionId: 'call_comment_1#1',
      happened: true,
      taken: 'answered',
    });
    expect(await refusal(answer({ questionId: 'call_comment_1#1', happened: true }))).toBe(
      'the question already has an answer',
    );
    await handle.result();
    expect(system().trackers.keyless.store.counts(repo)).toEqual({ issues: 1, comments: 1 });
    // Only the three Updates taken are in history; the refusals are the sender's, not the run's to keep.
    expect(await updateEvents(handle)).toEqual([
      'accepted',
      'completed',
      'accepted',
      'completed',
      'accepted',
      'completed',
    ]);
    const pending = await handle.query(pendingQuery);
    expect([pending.refusedDecisions, pending.refusedAnswers]).toEqual([[], []]);
  });
});

/** A value that is not a decision: anything without both a callId string and an approved boolean. */
const notShaped = (field: string, flag: string) => (v: unknown) =>
  !(
    typeof v === 'object' &&
    v !== null &&
    typeof (v as Record<string, unknown>)[field] === 'string' &&
    typeof (v as Record<string, unknown>)[flag] === 'boolean'
  );
/** Anything but a boolean (or absent), for a field that must be one. */
const notBoolean = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.boolean()),
);
/** Anything but a string (or absent), for a field that must be one. */
const notString = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.dictionary(fc.string(), fc.string()));

/** Random approvals the run must refuse: any JSON value, or a right one with one field broken. */
const badDecision = (callId: string, digest: string) =>
  fc.oneof(
    fc.jsonValue().filter(notShaped('callId', 'approved')),
    notBoolean.map((approved) => ({ callId, approved, by: 'mallory' })),
    notString.map((id) => ({ callId: id, approved: true, by: 'mallory' })),
    notString.map((by) => ({ callId, approved: true, by })),
    fc.constant({
      callId,
      approved: true,
      by: 'mallory',
      digest: digest.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
    }),
  );
/** Random answers the run must refuse: any JSON value, or a right one with one field broken. */
const badAnswer = (questionId: string) =>
  fc.oneof(
    fc.jsonValue().filter(notShaped('questionId', 'happened')),
    notBoolean.map((happened) => ({ questionId, happened, by: 'mallory' })),
    notString.map((id) => ({ questionId: id, happened: true })),
    notString.map((result) => ({ questionId, happened: true, result })),
  );

describe('property: random signals, then the right answers, leave exactly the right answers’ effects', () => {
  test('on live runs of the dev server', async () => {
    // The digests of the two creates, as the first waiting run shows them (the script's arguments are fixed).
    const probe = await startGatedRun();
    const d1 = (await waitingFor(probe.handle, 'call_create_1')).digest!;
    await probe.handle.terminate('probe');
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          approve1: fc.boolean(),
          approve2: fc.boolean(),
          forwarded: fc.boolean(),
          early: fc.array(badDecision('call_create_1', d1), { maxLength: 3 }),
          gate1: fc.array(badDecision('call_create_1', d1), { maxLength: 4 }),
          gate2: fc.array(badDecision('call_create_2', d1), { maxLength: 4 }),
          answers: fc.array(badAnswer('call_comment_1#1'), { maxLength: 4 }),
        }),
        async (c) => {
          const { handle, repo } = await startGatedRun(!c.forwarded);
          const send = async (name: 'approve' | 'resolve', values: unknown[]) => {
            for (const v of values) await handle.signal(name, v);
          };
          await send('approve', c.early);
          await waitingFor(handle, 'call_create_1');
          await send('approve', c.gate1);
          await handle.signal(approveSignal, { callId: 'call_create_1', approved: c.approve1, by: 'alice' });
          await waitingFor(handle, 'call_create_2');
          await send('approve', c.gate2);
          await handle.signal(approveSignal, { callId: 'call_create_2', approved: c.approve2, by: 'alice' });
          if (c.approve1) {
            await questionOpen(handle);
            await send('resolve', c.answers);
            await handle.signal(resolveSignal, { questionId: 'call_comment_1#1', happened: c.forwarded, by: 'alice' });
          } else await send('resolve', c.answers);
          await handle.result();
          expect(system().trackers.keyless.store.counts(repo)).toEqual({
            issues: Number(c.approve1) + Number(c.approve2),
            comments: Number(c.approve1),
          });
          const pending = await handle.query(pendingQuery);
          expect(pending.refusedDecisions).toHaveLength(c.early.length + c.gate1.length + c.gate2.length);
          expect(pending.refusedAnswers).toHaveLength(c.answers.length);
        },
      ),
      { numRuns: 20, endOnFailure: true },
    );
  }, 300_000);
});

test("the sweep's scripted person who cannot send a signal is that run's error, kept for its scenario", async () => {
  const person = new ScriptedPerson();
  const run = {
    client: system().env.client,
    workflowId: 'no-such-run',
    runId: 'r',
    repo: 'x',
    store: new Store(':memory:'),
  };
  const at = (index: number, name: string, detail: string) =>
    ({ type: 'point', workflowId: run.workflowId, index, name, detail }) as const;
  person.notice(run, at(1, 'approval.pending', 'create_issue call_create_1'));
  person.notice(run, at(2, 'question.asked', 'comment_on_issue call_comment_1#1'));
  await person.settle();
  // Both failures, in one order whichever signal failed first.
  const failed = person.failureOf('no-such-run')!.split('; ');
  expect(failed).toEqual([
    expect.stringMatching(/^the scripted person failed answering call_comment_1#1: .*not found/),
    expect.stringMatching(/^the scripted person failed approving call_create_1: .*not found/),
  ]);
  expect(person.failureOf('another-run')).toBeUndefined();
});
