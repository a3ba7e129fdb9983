// The sweep's audit and its per-effect counts, on made-up histories and tracker rows.
import { traceLine } from '../tracker/tools';
import { key } from '../common/key';
import { temporal } from '@temporalio/proto';
import { auditHistory, spentByParkedWorkers, type GenerationRecord } from '../sweep/judge/audit';

/** History events as the audit reads them (ids and times as plain numbers are enough here). */
type Events = Parameters<typeof auditHistory>[1];
import { countEffects, TRIAGE_EFFECTS } from '../agent-sweep/effects';
import { Store } from '../tracker/store';

const RUN = 'run-1';
const trace = (callId: string) => `body\n\n<!-- ${traceLine(key(RUN, callId))} -->`;
const now = '2026-11-30T00:00:00Z';

describe('effects are counted one expected effect at a time, from the tracker rows', () => {
  let store: Store;
  beforeEach(() => {
    store = new Store(':memory:');
  });
  afterEach(() => store.close());

  test('a clean run: two issues and the comment on the first, nothing missing, no duplicate', () => {
    store.createIssue('r', 'one', trace('call_create_1'), [], now);
    store.createIssue('r', 'two', trace('call_create_2'), [], now);
    store.addComment('r', 1, trace('call_comment_1'), now);
    expect(countEffects(store, 'r', RUN, TRIAGE_EFFECTS)).toEqual({
      dups: 0,
      diverged: 0,
      missing: 0,
      orphans: 0,
      details: { issues: 2, comments: 1 },
    });
  });

  test('a call made again with other arguments under its key diverged: each other content counts there, copies alike as duplicates', () => {
    store.createIssue('r', 'one', trace('call_create_1'), [], now);
    store.createIssue('r', 'one (take 2)', trace('call_create_1'), [], now);
    store.createIssue('r', 'one (take 2)', trace('call_create_1'), [], now);
    store.createIssue('r', 'two', trace('call_create_2'), ['bug'], now);
    store.createIssue('r', 'two', trace('call_create_2'), ['bug', 'checkout'], now);
    store.addComment('r', 1, trace('call_comment_1'), now);
    expect(countEffects(store, 'r', RUN, TRIAGE_EFFECTS)).toEqual({
      dups: 1,
      diverged: 2,
      missing: 0,
      orphans: 0,
      details: { issues: 5, comments: 1 },
    });
  });

  test('one issue lost and the other made twice shows as 1 missing and 1 duplicate, not as a net 0', () => {
    store.createIssue('r', 'one', trace('call_create_1'), [], now);
    store.createIssue('r', 'one', trace('call_create_1'), [], now);
    store.addComment('r', 1, trace('call_comment_1'), now);
    expect(countEffects(store, 'r', RUN, TRIAGE_EFFECTS)).toEqual({
      dups: 1,
      diverged: 0,
      missing: 1,
      orphans: 0,
      details: { issues: 2, comments: 1 },
    });
  });

  test('a comment on an issue other than the one its script meant is missing where it belongs and extra where it is', () => {
    store.createIssue('r', 'one', trace('call_create_1'), [], now);
    store.createIssue('r', 'two', trace('call_create_2'), [], now);
    store.addComment('r', 2, trace('call_comment_1'), now);
    expect(countEffects(store, 'r', RUN, TRIAGE_EFFECTS)).toEqual({
      dups: 1,
      diverged: 0,
      missing: 1,
      orphans: 0,
      details: { issues: 2, comments: 1 },
    });
  });

  test('a row that no call of the run accounts for is an orphan; another run in the same repo never counts', () => {
    store.createIssue('r', 'one', trace('call_create_1'), [], now);
    store.createIssue('r', 'two', trace('call_create_2'), [], now);
    store.addComment('r', 1, trace('call_comment_1'), now);
    store.createIssue('r', 'stray', 'no trace at all', [], now);
    expect(countEffects(store, 'r', RUN, TRIAGE_EFFECTS)).toMatchObject({ dups: 0, orphans: 1, missing: 0 });
    expect(countEffects(store, 'r', 'another-run', TRIAGE_EFFECTS)).toMatchObject({ missing: 3, dups: 0, orphans: 4 });
  });
});

describe('the history audit: every timeout must be a kill', () => {
  const ts = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });
  const history = (identity: string, timedOutAt: number) =>
    [
      { eventId: 3, workflowTaskStartedEventAttributes: { identity } },
      { eventId: 4, eventTime: ts(timedOutAt), workflowTaskTimedOutEventAttributes: { startedEventId: 3 } },
    ] as unknown as Events;
  const killed: GenerationRecord = { identity: 'gen-1@10', killedAt: 10_000, parked: new Map([['wf', 6_000]]) };
  const other: GenerationRecord = { identity: 'gen-2@11', killedAt: 10_000, parked: new Map() };
  const last: GenerationRecord = { identity: 'gen-3@12', killedAt: 0, parked: new Map() };

  test('a task of the generation that parked the run and was killed is the kill, from the moment it parked the run', () => {
    expect(auditHistory('wf', history('gen-1@10', 12_000), [killed, last])).toEqual([]);
    expect(auditHistory('wf', history('gen-1@10', 8_000), [killed, last])).toEqual([]);
  });

  test('an activity that timed out in the generation that later parked the run, before it parked it, is a live timeout', () => {
    // The worker was alive and working for the run then: an attempt too slow for its timeout, whose
    // retry ran beside it, may have acted twice, and no kill caused it.
    const activity = (timedOutAt: number) =>
      [
        { eventId: 5, activityTaskStartedEventAttributes: { identity: 'gen-1@10' } },
        { eventId: 6, eventTime: ts(timedOutAt), activityTaskTimedOutEventAttributes: { startedEventId: 5 } },
      ] as unknown as Events;
    expect(auditHistory('wf', activity(5_000), [killed, last])).toEqual([
      'activity timed out at event 6 in live worker gen-1@10',
    ]);
    expect(auditHistory('wf', activity(7_000), [killed, last])).toEqual([]);
    // A workflow task of that generation is only run again, whenever it timed out: it acts on nothing.
    expect(auditHistory('wf', history('gen-1@10', 5_000), [killed, last])).toEqual([]);
  });

  test('a task that timed out in the generation that finished the run is a live timeout', () => {
    expect(auditHistory('wf', history('gen-3@12', 12_000), [killed, last])).toEqual([
      'workflow task timed out at event 4 in live worker gen-3@12',
    ]);
  });

  test("an Update's speculative workflow task (written on its timeout, with no identity) is the kill's only if a generation that parked the run was killed before it timed out", () => {
    const speculative = (startedAt: number, timedOutAt: number) =>
      [
        { eventId: 3, eventTime: ts(startedAt), workflowTaskStartedEventAttributes: { identity: '' } },
        { eventId: 4, eventTime: ts(timedOutAt), workflowTaskTimedOutEventAttributes: { startedEventId: 3 } },
      ] as unknown as Events;
    expect(auditHistory('wf', speculative(8_000, 12_000), [killed, last])).toEqual([]);
    // Dispatched to a poll the killed generation left behind: started after the kill, still the kill's.
    expect(auditHistory('wf', speculative(10_100, 14_100), [killed, last])).toEqual([]);
    const live = ['workflow task timed out at event 4, started by no named worker, with no kill before'];
    // Timed out before the kill, or no generation that parked the run was killed.
    expect(auditHistory('wf', speculative(4_000, 8_000), [killed, last])).toEqual(live);
    expect(auditHistory('wf', speculative(8_000, 12_000), [other, last])).toEqual(live);
  });

  test('a task of a generation that did not park the run counts only if it timed out after the kill', () => {
    expect(auditHistory('wf', history('gen-2@11', 9_000), [other])).toHaveLength(1);
    expect(auditHistory('wf', history('gen-2@11', 11_000), [other])).toEqual([]);
  });

  test('an activity that timed out in a live worker is reported', () => {
    const events = [
      { eventId: 5, activityTaskStartedEventAttributes: { identity: 'gen-3@12' } },
      { eventId: 6, eventTime: ts(12_000), activityTaskTimedOutEventAttributes: { startedEventId: 5 } },
    ] as unknown as Events;
    expect(auditHistory('wf', events, [killed, last])).toEqual([
      'activity timed out at event 6 in live worker gen-3@12',
    ]);
  });

  test('a row whose receiver is slower than the timeout lets that activity time out in a live worker, and no other', () => {
    const events = (type: string) =>
      [
        { eventId: 4, activityTaskScheduledEventAttributes: { activityType: { name: type } } },
        { eventId: 5, activityTaskStartedEventAttributes: { identity: 'gen-3@12' } },
        {
          eventId: 6,
          eventTime: ts(12_000),
          activityTaskTimedOutEventAttributes: { scheduledEventId: 4, startedEventId: 5 },
        },
      ] as unknown as Events;
    expect(auditHistory('wf', events('runTool'), [killed, last], new Set(['runTool']))).toEqual([]);
    expect(auditHistory('wf', events('callModel'), [killed, last], new Set(['runTool']))).toHaveLength(1);
  });
});

describe("attempts a parked worker took while it waited for the batch's kill", () => {
  const { RetryState } = temporal.api.enums.v1;
  /** A lookup (activity 7) scheduled at event 5 that ends at event 9, as `retryState` says. */
  const lookup = (retryState: number) =>
    [
      { eventId: 5, activityTaskScheduledEventAttributes: { activityId: '7', activityType: { name: 'lookupCall' } } },
      { eventId: 9, activityTaskTimedOutEventAttributes: { scheduledEventId: 5, retryState } },
    ] as unknown as Events;
  const taken = [
    { activityId: '7', activityType: 'lookupCall', attempt: 2 },
    { activityId: '7', activityType: 'lookupCall', attempt: 3 },
  ];

  test('a call that then ran out of attempts is named: what the run did next was the kill coming late', () => {
    expect(spentByParkedWorkers(lookup(RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED), taken)).toEqual([
      "lookupCall ran out of attempts at event 9 after a parked worker, waiting for its kill, took 2 of them (attempt 2, 3): the kill came after the call's timeout",
    ]);
    expect(spentByParkedWorkers(lookup(RetryState.RETRY_STATE_TIMEOUT), taken)).toHaveLength(1);
  });

  test('a call that still had attempts, another call, or no attempt taken: nothing to name', () => {
    // The last attempt timed out, but the call was handed on (a kill's timeout, then a success elsewhere).
    expect(spentByParkedWorkers(lookup(RetryState.RETRY_STATE_IN_PROGRESS), taken)).toEqual([]);
    expect(
      spentByParkedWorkers(lookup(RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED), [
        { activityId: '8', activityType: 'lookupCall', attempt: 2 },
      ]),
    ).toEqual([]);
    expect(spentByParkedWorkers(lookup(RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED), [])).toEqual([]);
  });
});
