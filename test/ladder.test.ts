// The resolution ladder on its own: scripted attempts, lookups and answers, a fake clock, no server.
import { callIdentities, parseArguments } from '../workflows/calls';
import {
  keyMarginMs,
  settleCall,
  type Answer,
  type Attempt,
  type LadderIO,
  type LadderTool,
  type Lookup,
} from '../workflows/ladder';
import { judgeAnswer } from '../workflows/questions';
import { BUILT_IN_TRACKER_TOOLS } from '../workflows/legacy-tools';
import { toolSpec } from '../workflows/tools';
import type { ToolCall } from '../workflows/types';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const ok = (output: string, attempt = 1): Attempt => ({ kind: 'ok', response: { output, attempt, replayed: false } });
const unknown = (reason = 'worker died'): Attempt => ({ kind: 'unknown', reason });
const notSent = (reason = 'connection refused'): Attempt => ({ kind: 'not-sent', reason });

/** A ladder world that plays scripted outcomes and records every call the ladder made. */
function world(script: {
  attempts: Attempt[];
  lookups?: Lookup[];
  answers?: Answer[];
  tickMs?: number;
  lookupMs?: number;
}) {
  let clock = 1_000_000;
  const log: string[] = [];
  const io: LadderIO = {
    now: () => clock,
    async sleep(ms) {
      log.push(`sleep ${ms}`);
      clock += ms;
    },
    async attempt(repeat) {
      log.push(
        `attempt harmless=${repeat.harmless}${repeat.withinMs === undefined ? '' : ` within=${repeat.withinMs}`}`,
      );
      clock += script.tickMs ?? 0; // how long the attempt (and Temporal's own retries) took
      const next = script.attempts.shift();
      if (!next) throw new Error('no attempt scripted');
      return next;
    },
    async lookup(keyExpired) {
      log.push(`lookup keyExpired=${keyExpired}`);
      clock += script.lookupMs ?? 0;
      const next = script.lookups?.shift();
      if (!next) throw new Error('no lookup scripted');
      return next;
    },
    async ask(reason) {
      log.push(`ask: ${reason}`);
      const next = script.answers?.shift();
      if (!next) throw new Error('no answer scripted');
      return next;
    },
  };
  return { io, log, advance: (ms: number) => (clock += ms) };
}

const write: LadderTool = {
  readOnly: false,
  idempotent: false,
  keyed: true,
  retentionMs: DAY,
  canLookup: true,
  receiverDownMs: 10_000,
};
const keyLife = DAY - keyMarginMs(DAY);

describe('the resolution ladder', () => {
  test('a clean first attempt settles on rung clean', async () => {
    const w = world({ attempts: [ok('{"number":1}')] });
    expect(await settleCall(write, w.io)).toEqual({ status: 'done', rung: 'clean', output: '{"number":1}' });
    expect(w.log).toEqual([`attempt harmless=true within=${keyLife}`]);
  });

  test('rung 1: a keyed call that Temporal repeated settles on rung repeat', async () => {
    const w = world({ attempts: [ok('{"number":1}', 3)] });
    expect(await settleCall(write, w.io)).toMatchObject({ status: 'done', rung: 'repeat' });
  });

  test('a refusal fails the call without a lookup or a question', async () => {
    const w = world({ attempts: [{ kind: 'refused', message: 'bad title' }] });
    expect(await settleCall(write, w.io)).toEqual({ status: 'failed', rung: 'clean', output: '{"error":"bad title"}' });
    expect(w.log).toHaveLength(1);
  });

  test('a read that never answered is given up, never looked up or asked about', async () => {
    const w = world({ attempts: [unknown('timed out')] });
    const read = { ...write, readOnly: true, keyed: false, canLookup: false };
    expect(await settleCall(read, w.io)).toEqual({
      status: 'done',
      rung: 'clean',
      output: '{"error":"no answer: timed out"}',
    });
    expect(w.log).toEqual(['attempt harmless=true']); // no time bound: a read may repeat freely
  });

  test('rung 2: without a key, the receiver says it did not happen, so the call runs again (rung lookup)', async () => {
    const w = world({ attempts: [unknown(), ok('{"number":2}')], lookups: [{ kind: 'not-happened' }] });
    expect(await settleCall({ ...write, keyed: false }, w.io)).toEqual({
      status: 'done',
      rung: 'lookup',
      output: '{"number":2}',
    });
    expect(w.log).toEqual(['attempt harmless=false', 'lookup keyExpired=false', 'attempt harmless=false']);
  });

  test('rung 2: the receiver says it happened: its record is the result, nothing runs again', async () => {
    const w = world({ attempts: [unknown()], lookups: [{ kind: 'happened', output: '{"number":7}' }] });
    expect(await settleCall({ ...write, keyed: false }, w.io)).toEqual({
      status: 'done',
      rung: 'lookup',
      output: '{"number":7}',
    });
  });

  test('rung 3: with no lookup, a person is asked; "it happened" settles the call (rung person)', async () => {
    const w = world({ attempts: [unknown('socket hang up')], answers: [{ happened: true, by: 'carol' }] });
    const settled = await settleCall({ ...write, keyed: false, canLookup: false }, w.io);
    expect(settled).toEqual({ status: 'done', rung: 'person', output: '{"ok":true,"confirmedBy":"carol"}' });
    expect(w.log).toEqual(['attempt harmless=false', 'ask: socket hang up']);
  });

  test('rung 3: "it did not happen" runs the call again, once', async () => {
    const w = world({ attempts: [unknown(), ok('{"number":3}')], answers: [{ happened: false }] });
    expect(await settleCall({ ...write, keyed: false, canLookup: false }, w.io)).toMatchObject({
      rung: 'person',
      output: '{"number":3}',
    });
    expect(w.log.filter((l) => l.startsWith('attempt'))).toHaveLength(2);
  });

  test('a receiver that cannot tell sends the question to a person, with its reason', async () => {
    const w = world({
      attempts: [unknown('attempt timed out')],
      lookups: [{ kind: 'cannot-tell', reason: 'tracker unreachable' }],
      answers: [{ happened: true }],
    });
    expect(await settleCall({ ...write, keyed: false }, w.io)).toMatchObject({ rung: 'person' });
    expect(w.log.at(-1)).toBe('ask: attempt timed out; the receiver cannot tell: tracker unreachable');
  });

  describe('a receiver slower than the attempt', () => {
    // The attempt timed out while its request was still in flight; the receiver states that a request
    // may still commit up to 7 s after it arrived. The request arrived before the attempt ended.
    const slow = { kind: 'not-happened', commitDeadlineMs: 7_000 } as const;
    const keyless = { ...write, keyed: false };

    test('"not found" within the commit deadline is not final: the ladder waits it out and asks again', async () => {
      const w = world({
        attempts: [unknown('attempt timed out')],
        lookups: [slow, { kind: 'happened', output: '{"number":5}' }],
        lookupMs: 100,
      });
      expect(await settleCall(keyless, w.io)).toEqual({ status: 'done', rung: 'lookup', output: '{"number":5}' });
      // Asked at once (a request that committed long ago is found without a wait), then at the deadline.
      expect(w.log).toEqual([
        'attempt harmless=false',
        'lookup keyExpired=false',
        'sleep 6900',
        'lookup keyExpired=false',
      ]);
    });

    test('"not found" once the deadline has passed is final: the call runs again', async () => {
      const w = world({ attempts: [unknown(), ok('{"number":6}')], lookups: [slow, slow] });
      expect(await settleCall(keyless, w.io)).toEqual({ status: 'done', rung: 'lookup', output: '{"number":6}' });
      expect(w.log).toEqual([
        'attempt harmless=false',
        'lookup keyExpired=false',
        'sleep 7000',
        'lookup keyExpired=false',
        'attempt harmless=false',
      ]);
    });

    test('a lookup asked before the deadline is not final even when its answer comes after it: asked again after a 1 ms timer', async () => {
      // A worker that restarts long after the first lookup must not take its old "not found" as final.
      const w = world({ attempts: [unknown(), ok('{}')], lookups: [slow, slow], lookupMs: 8_000 });
      await settleCall(keyless, w.io);
      expect(w.log).toEqual([
        'attempt harmless=false',
        'lookup keyExpired=false',
        'sleep 1',
        'lookup keyExpired=false',
        'attempt harmless=false',
      ]);
    });

    test('a receiver that states no deadline is taken at its word at once (the damage the sweep shows)', async () => {
      const w = world({ attempts: [unknown(), ok('{}')], lookups: [{ kind: 'not-happened' }] });
      await settleCall(keyless, w.io);
      expect(w.log.some((l) => l.startsWith('sleep'))).toBe(false);
      expect(w.log.filter((l) => l.startsWith('lookup'))).toHaveLength(1);
    });
  });

  describe('a key that expires while the call is in doubt', () => {
    test('keyed repeats are bounded to end before the key does', async () => {
      // Temporal's own retries of a harmless repeat must all happen while the receiver still holds
      // the key: the attempt gets the key's remaining life as its schedule-to-close bound.
      const w = world({ attempts: [ok('{}')] });
      await settleCall(write, w.io);
      expect(w.log[0]).toBe(`attempt harmless=true within=${keyLife}`);
      expect(keyLife).toBeLessThan(DAY);
    });

    test('once the key may have expired, the call is no longer repeated blindly: the receiver is searched, then it runs again', async () => {
      // The workers were down longer than the key lives: the first attempt's outcome arrives late.
      const w = world({
        attempts: [unknown('attempt timed out (SCHEDULE_TO_CLOSE)'), ok('{"number":4}')],
        lookups: [{ kind: 'not-happened' }],
        tickMs: keyLife + 1,
      });
      expect(await settleCall(write, w.io)).toEqual({ status: 'done', rung: 'lookup', output: '{"number":4}' });
      expect(w.log).toEqual([
        `attempt harmless=true within=${keyLife}`,
        'lookup keyExpired=true',
        'attempt harmless=false',
      ]);
    });

    test('an expired key the receiver cannot look up goes to a person, never to a blind repeat', async () => {
      const w = world({
        attempts: [unknown('attempt timed out (SCHEDULE_TO_CLOSE)')],
        lookups: [{ kind: 'cannot-tell', reason: 'key expired' }],
        answers: [{ happened: true }],
        tickMs: keyLife,
      });
      expect(await settleCall(write, w.io)).toMatchObject({ rung: 'person' });
      expect(w.log).toEqual([
        `attempt harmless=true within=${keyLife}`,
        'lookup keyExpired=true',
        'ask: attempt timed out (SCHEDULE_TO_CLOSE); the receiver cannot tell: key expired',
      ]);
    });

    test('an attempt an earlier execution of the run sent: the key counts from then, so after a reset a day later the receiver is searched, never repeated under a dropped key', async () => {
      const w = world({
        attempts: [
          { kind: 'unknown', reason: 'an earlier execution sent it', sentAt: 1_000_000 - DAY },
          ok('{"number":5}'),
        ],
        lookups: [{ kind: 'not-happened' }],
      });
      expect(await settleCall(write, w.io)).toEqual({ status: 'done', rung: 'lookup', output: '{"number":5}' });
      expect(w.log).toEqual([
        `attempt harmless=true within=${keyLife}`,
        'lookup keyExpired=true',
        'attempt harmless=false',
      ]);
    });

    test('after Temporal gave up its repeats while the key is held, the receiver is asked by key; a rerun is bounded by what is left of the key', async () => {
      const w = world({ attempts: [unknown(), ok('{}')], lookups: [{ kind: 'not-happened' }], tickMs: HOUR });
      expect(await settleCall(write, w.io)).toMatchObject({ rung: 'lookup' });
      expect(w.log).toEqual([
        `attempt harmless=true within=${keyLife}`,
        'lookup keyExpired=false',
        `attempt harmless=true within=${keyLife - HOUR}`,
      ]);
    });
  });
});

describe('questions and their answers', () => {
  const book = (open: string[], answered: string[], askedAbout: Record<string, number>) => ({
    open: new Map(open.map((q) => [q, {}])),
    answered: new Map(answered.map((q) => [q, {}])),
    askedAbout: new Map(Object.entries(askedAbout)),
  });

  test('an answer to an open question is taken', () => {
    expect(judgeAnswer('c1#1', book(['c1#1'], [], { c1: 1 }))).toBeNull();
  });

  test('a second answer to the same question (double submit, two operators) is refused', () => {
    expect(judgeAnswer('c1#1', book([], ['c1#1'], { c1: 1 }))).toBe('the question already has an answer');
  });

  test('a stale answer cannot answer the next question about the same call', () => {
    // Question 2 about c1 is open; an answer naming question 1 is for the settled one.
    expect(judgeAnswer('c1#1', book(['c1#2'], [], { c1: 2 }))).toBe('the question was already settled');
  });

  test('the next question of a call may be answered before it is asked (a restart will ask it); no later one', () => {
    expect(judgeAnswer('c1#2', book([], ['c1#1'], { c1: 1 }))).toBeNull();
    expect(judgeAnswer('c1#3', book([], ['c1#1'], { c1: 1 }))).toBe('no such question was asked');
  });

  test('an answer without a question id is refused', () => {
    expect(judgeAnswer(undefined, book([], [], {}))).toMatch(/not a question id/);
    expect(judgeAnswer('c1', book([], [], {}))).toMatch(/not a question id/);
  });
});

describe('call identities', () => {
  const call = (id: string): ToolCall => ({
    id,
    type: 'function',
    function: { name: 'create_issue', arguments: '{}' },
  });

  test("a provider's id is kept when it is new to the run", () => {
    const identity = callIdentities();
    expect([identity(call('call_a'), 1, 1), identity(call('call_b'), 1, 2)]).toEqual(['call_a', 'call_b']);
  });

  test('a repeated or empty id gets an identity of its own, from the turn and position', () => {
    const identity = callIdentities();
    const ids = [
      identity(call('call_0'), 1, 1),
      identity(call('call_0'), 2, 1),
      identity(call(''), 2, 2),
      identity(call(''), 3, 1),
    ];
    expect(ids).toEqual(['call_0', 'call_0@2.1', 'call@2.2', 'call@3.1']);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('a provider id that looks like a derived one cannot collide with it', () => {
    const identity = callIdentities();
    const ids = [identity(call('x@2.1'), 1, 1), identity(call('x'), 1, 2), identity(call('x'), 2, 1)];
    expect(new Set(ids).size).toBe(3);
  });
});

describe('tool arguments', () => {
  const create = toolSpec('create_issue', BUILT_IN_TRACKER_TOOLS)!;
  const callWith = (args: string): ToolCall => ({
    id: 'c',
    type: 'function',
    function: { name: 'create_issue', arguments: args },
  });

  test('a JSON object is taken', () => {
    expect(parseArguments(callWith('{"title":"t","body":"b"}'), create, 'tool_calls')).toEqual({
      args: { title: 't', body: 'b' },
    });
    // An argument that happens to be called "refused" is an argument like any other.
    expect(parseArguments(callWith('{"refused":"no"}'), create, 'tool_calls')).toEqual({ args: { refused: 'no' } });
  });

  test('arguments that are not JSON are refused, never replaced by defaults', () => {
    expect(parseArguments(callWith('{"title":"t",'), create, 'tool_calls')).toEqual({
      refused: expect.stringMatching(/^the arguments are not valid JSON \(.+\); the call was not run$/),
    });
    expect(parseArguments(callWith(''), create, 'tool_calls')).toEqual({
      refused: expect.stringMatching(/not valid JSON/),
    });
  });

  test('arguments that are JSON but not an object are refused', () => {
    expect(parseArguments(callWith('[1]'), create, 'tool_calls')).toEqual({
      refused: 'the arguments must be a JSON object; the call was not run',
    });
    expect(parseArguments(callWith('null'), create, 'tool_calls')).toEqual({
      refused: 'the arguments must be a JSON object; the call was not run',
    });
  });

  test('a reply cut off at the length limit runs none of its calls, even if the JSON happens to parse', () => {
    expect(parseArguments(callWith('{"title":"t","body":"b"}'), create, 'length')).toEqual({
      refused: expect.stringMatching(/cut off at the length limit/),
    });
  });

  test('no text at all is an empty object only for a tool that takes no arguments', () => {
    const none = { ...create, name: 'ping', parameters: { type: 'object', properties: {} } };
    expect(parseArguments(callWith(''), none, 'tool_calls')).toEqual({ args: {} });
  });
});

describe('a receiver that refuses connections', () => {
  const keyless: LadderTool = { ...write, keyed: false, canLookup: false };

  test('a call it never received is sent again, with backoff, until it answers: no lookup, no question', async () => {
    const w = world({ attempts: [notSent(), notSent(), notSent(), ok('{"number":1}')] });
    expect(await settleCall(keyless, w.io)).toEqual({ status: 'done', rung: 'clean', output: '{"number":1}' });
    expect(w.log).toEqual([
      'attempt harmless=false',
      'sleep 1000',
      'attempt harmless=false',
      'sleep 2000',
      'attempt harmless=false',
      'sleep 4000',
      'attempt harmless=false',
    ]);
  });

  test('down for longer than receiverDownMs: the call fails, and the model hears nothing was sent', async () => {
    const w = world({ attempts: Array.from({ length: 6 }, () => notSent('tracker unreachable (nothing was sent)')) });
    expect(await settleCall(keyless, w.io)).toEqual({
      status: 'failed',
      rung: 'clean',
      output: JSON.stringify({
        error: 'tracker unreachable (nothing was sent); still unreachable after 10 s of tries',
      }),
    });
    // 1 + 2 + 4 s, then the 3 s left of the 10 s.
    expect(w.log.filter((l) => l.startsWith('sleep'))).toEqual([
      'sleep 1000',
      'sleep 2000',
      'sleep 4000',
      'sleep 3000',
    ]);
  });

  test('the wait starts again after an answer: each outage gets its own receiverDownMs', async () => {
    const w = world({
      attempts: [notSent(), notSent(), unknown(), notSent(), ok('{"number":1}')],
      lookups: [{ kind: 'not-happened' }],
    });
    expect(await settleCall({ ...keyless, canLookup: true }, w.io)).toMatchObject({
      status: 'done',
      rung: 'lookup',
    });
    expect(w.log.filter((l) => l.startsWith('sleep'))).toEqual(['sleep 1000', 'sleep 2000', 'sleep 1000']);
  });
});

describe("the ladder takes a receiver's record only when it is the call's", () => {
  test('a key held for another request goes to a person with both shown; "did not happen" ends the call unsent', async () => {
    const conflict: Attempt = { kind: 'conflict', reason: 'the key was first used for {"title":"squatted"}' };
    const denied = world({ attempts: [conflict], answers: [{ happened: false, by: 'op' }] });
    const settled = await settleCall(write, denied.io);
    expect(settled).toMatchObject({ status: 'failed', rung: 'person' });
    expect(JSON.parse(settled.output as string).error).toMatch(/"squatted".*did not happen, so it was not sent again/);
    expect(denied.log).toEqual([`attempt harmless=true within=${keyLife}`, `ask: ${conflict.reason}`]);
    // A person who knows the record is the call's says so, with what it returned.
    const confirmed = world({ attempts: [conflict], answers: [{ happened: true, result: '{"number":7}' }] });
    expect(await settleCall(write, confirmed.io)).toEqual({ status: 'done', rung: 'person', output: '{"number":7}' });
  });

  test('a lookup that finds a record of other arguments asks a person, never reads it as "happened"', async () => {
    const w = world({
      attempts: [unknown(), ok('{"number":2}')],
      lookups: [{ kind: 'mismatch', reason: 'the tracker keeps {"title":"planted"}' }],
      answers: [{ happened: false }],
    });
    expect(await settleCall({ ...write, keyed: false }, w.io)).toEqual({
      status: 'done',
      rung: 'person',
      output: '{"number":2}',
    });
    expect(w.log[2]).toBe(
      'ask: worker died; the receiver holds a record that is not this call\'s: the tracker keeps {"title":"planted"}',
    );
  });
});
