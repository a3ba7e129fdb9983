/**
 * The resolution ladder: how a tool call whose outcome is unknown gets settled.
 *
 *   1. repeat it, if a repeat is harmless (the tool only reads, is idempotent, or sent a key the
 *      receiver still holds);
 *   2. else ask the receiver whether it happened;
 *   3. else ask a person.
 *
 * A call whose receiver refuses connections (it restarts, or is down) did nothing: it is sent again,
 * with backoff, for as long as the tool allows (`receiverDownMs`), before the model hears it is down.
 *
 * A receiver's record counts only when it is this call's: one that says the call's key was first used
 * for another request (`conflict`), or a lookup that finds a record of other arguments (`mismatch`),
 * goes to a person with both shown, never silently to "failed" or "happened".
 *
 * Pure logic with its inputs explicit (one attempt, a lookup, a question, a clock), so it can be read
 * and tested without Temporal; the agent workflow gives it activities, a signal and workflow time.
 */
import type { Rung, ToolOutput, ToolResponse } from './types';

/** How one attempt at a tool call ended, as far as the caller can tell. */
export type Attempt =
  | { kind: 'ok'; response: ToolResponse }
  /** The receiver refused the request: nothing happened, and running it again would not help. */
  | { kind: 'refused'; message: string }
  /**
   * The attempt may or may not have taken effect: it timed out, its worker died, or the answer was
   * lost. `sentAt`: an earlier execution of the run (before a reset or a retry) first sent the call
   * then, in ms since the epoch, so the key's life counts from then.
   */
  | { kind: 'unknown'; reason: string; sentAt?: number }
  /** Nothing of the attempt reached the receiver (it refused the connection): it did nothing, and may be sent again. */
  | { kind: 'not-sent'; reason: string }
  /**
   * The receiver holds the call's key for another request (someone used it first): it did not run
   * this one, and cannot tell whether what it holds is this call's. `reason` shows both.
   */
  | { kind: 'conflict'; reason: string };

/** The receiver's answer to "did this call happen?". */
export type Lookup =
  | { kind: 'happened'; output?: ToolOutput }
  /**
   * No trace of the call. With `commitDeadlineMs`, the receiver says a request may still commit that
   * long after it arrived (a slow receiver): the answer is final only once that long has passed since
   * the attempt ended, and the ladder waits and asks again before then.
   */
  | { kind: 'not-happened'; commitDeadlineMs?: number }
  /** The receiver cannot say (its record of the key expired, it keeps none, it failed): ask a person. */
  | { kind: 'cannot-tell'; reason: string }
  /** The receiver holds a record under the call's key (or its trace) of other arguments: `reason` shows it; ask a person. */
  | { kind: 'mismatch'; reason: string };

/** A person's answer to "did this call happen?". */
export interface Answer {
  happened: boolean;
  /** What the call returned, if the person knows. */
  result?: string;
  by?: string;
}

/** What the ladder needs to know about the tool and its receiver. */
export interface LadderTool {
  /** Only reads: a repeat is harmless, and an unanswered read changes nothing. */
  readOnly: boolean;
  /** Changes something, but doing it twice leaves the same state as once. */
  idempotent: boolean;
  /** The call carries an idempotency key that its receiver honours. */
  keyed: boolean;
  /** How long the receiver keeps a key after the call's first attempt. */
  retentionMs: number;
  /** The receiver can be asked whether the call happened. */
  canLookup: boolean;
  /**
   * How long to go on sending a call whose receiver refuses connections, from the first refusal in a
   * row: nothing reaches it, so sending again is safe whatever the tool does. Then the model is told.
   */
  receiverDownMs: number;
}

/** The first wait before a call whose receiver refused the connection is sent again; it doubles up to the next. */
export const RECEIVER_DOWN_FIRST_WAIT_MS = 1_000;
export const RECEIVER_DOWN_MAX_WAIT_MS = 15_000;

/** How the ladder acts; the workflow supplies activities, a signal and workflow time. */
export interface LadderIO {
  /**
   * One attempt at the call. With `repeat`, the runtime may run it again by itself after an unknown
   * outcome, but only within `repeat.withinMs` of now when that is set (the key's remaining life).
   */
  attempt(repeat: { harmless: boolean; withinMs?: number }): Promise<Attempt>;
  /** Asks the receiver; `keyExpired` says the key may be gone, so only a search can tell. */
  lookup(keyExpired: boolean): Promise<Lookup>;
  /** Asks a person and waits for the answer. */
  ask(reason: string): Promise<Answer>;
  /** Milliseconds since the epoch (workflow time in a workflow, a fake clock in tests). */
  now(): number;
  /** Waits `ms` on that clock (a durable timer in a workflow). */
  sleep(ms: number): Promise<void>;
  /** Told when the call starts running or starts waiting for a person. */
  status?(status: 'running' | 'asking'): void;
}

/** How a call was settled. */
export interface Settled {
  /** `failed`: the receiver refused it; nothing happened. */
  status: 'done' | 'failed';
  rung: Rung;
  /** The tool result for the model (a large one where the payload store keeps it). */
  output: ToolOutput;
}

/**
 * A key is trusted to make a repeat harmless only until this long before the receiver drops it: an
 * attempt in flight, and the two clocks, need room. A tenth of the retention, at most an hour.
 */
export function keyMarginMs(retentionMs: number): number {
  return Math.min(retentionMs / 10, 3_600_000);
}

/**
 * Asks the receiver whether the call happened, right after an attempt ended unknown. A request sent
 * before the attempt ended may still be in flight at a slow receiver; if the receiver states how long
 * after arrival a request can still commit, "not found" is taken only after that long, asking again then.
 */
async function lookUp(io: LadderIO, keyExpired: boolean): Promise<Lookup> {
  const endedAt = io.now();
  for (;;) {
    // The receiver answers for the moment it was asked, which is no earlier than this.
    const askedAt = io.now();
    const found = await io.lookup(keyExpired);
    if (found.kind !== 'not-happened' || !found.commitDeadlineMs) return found;
    const finalAt = endedAt + found.commitDeadlineMs;
    if (askedAt >= finalAt) return found;
    // Always a timer, even when the deadline has passed meanwhile (a restart long after): the run's
    // steps are then the same however late a worker comes back.
    await io.sleep(Math.max(1, finalAt - io.now()));
  }
}

/** Runs a call until its outcome is known, climbing the ladder whenever an attempt leaves it unknown. */
export async function settleCall(tool: LadderTool, io: LadderIO): Promise<Settled> {
  let firstAt = io.now();
  const keyLife = tool.retentionMs - keyMarginMs(tool.retentionMs);
  let rung: Rung = 'clean';
  // Since when the receiver has refused every connection in a row, and the next wait before sending again.
  let downSince: number | null = null;
  let downWait = RECEIVER_DOWN_FIRST_WAIT_MS;
  for (;;) {
    // Rung 1: a repeat is harmless if the tool only reads, is idempotent, or sent a key still held.
    const keyLeftMs = keyLife - (io.now() - firstAt);
    const keyHeld = tool.keyed && keyLeftMs > 0;
    const byNature = tool.readOnly || tool.idempotent;
    io.status?.('running');
    const outcome = await io.attempt({
      harmless: byNature || keyHeld,
      // Repeats that rely on the key must end before the key does.
      withinMs: byNature || !keyHeld ? undefined : keyLeftMs,
    });
    if (outcome.kind === 'not-sent') {
      const now = io.now();
      downSince ??= now;
      const leftMs = tool.receiverDownMs - (now - downSince);
      if (leftMs > 0) {
        await io.sleep(Math.max(1, Math.min(downWait, leftMs)));
        downWait = Math.min(downWait * 2, RECEIVER_DOWN_MAX_WAIT_MS);
        continue;
      }
      // This attempt did nothing, and neither did any before it: an unknown outcome is settled (a lookup,
      // a person said it did not happen) before the ladder sends a call again, and a retry that Temporal
      // makes after an unknown outcome reports a refused connection as unknown (`activities/errors.ts`).
      const error = `${outcome.reason}; still unreachable after ${Math.round((now - downSince) / 1000)} s of tries`;
      return { status: 'failed', rung, output: JSON.stringify({ error }) };
    }
    downSince = null;
    downWait = RECEIVER_DOWN_FIRST_WAIT_MS;
    if (outcome.kind === 'unknown' && outcome.sentAt !== undefined) firstAt = Math.min(firstAt, outcome.sentAt);
    if (outcome.kind === 'ok') {
      if (rung === 'clean' && outcome.response.attempt > 1) rung = 'repeat';
      return { status: 'done', rung, output: outcome.response.output };
    }
    if (outcome.kind === 'refused')
      return { status: 'failed', rung, output: JSON.stringify({ error: outcome.message }) };
    if (outcome.kind === 'conflict') {
      // Someone else's request holds the key: only a person can say whether it was this call.
      io.status?.('asking');
      const answer = await io.ask(outcome.reason);
      rung = 'person';
      if (answer.happened) return happenedBy(answer);
      // Sent again it would meet the same record: the call ends here, and the model hears why.
      const error = `${outcome.reason}; a person said this call did not happen, so it was not sent again`;
      return { status: 'failed', rung, output: JSON.stringify({ error }) };
    }
    if (tool.readOnly) {
      // Nothing can have changed; the model can decide what to do without the answer.
      return { status: 'done', rung, output: JSON.stringify({ error: `no answer: ${outcome.reason}` }) };
    }

    // Rung 2: ask the receiver whether the call happened.
    let reason = outcome.reason;
    if (tool.canLookup) {
      const found = await lookUp(io, tool.keyed && io.now() - firstAt >= keyLife);
      if (found.kind === 'happened')
        return { status: 'done', rung: 'lookup', output: found.output ?? JSON.stringify({ ok: true }) };
      if (found.kind === 'not-happened') {
        rung = 'lookup';
        continue; // it never happened: running it now is its first effect
      }
      reason =
        found.kind === 'mismatch'
          ? `${reason}; the receiver holds a record that is not this call's: ${found.reason}`
          : `${reason}; the receiver cannot tell: ${found.reason}`;
    }

    // Rung 3: ask a person.
    io.status?.('asking');
    const answer = await io.ask(reason);
    rung = 'person';
    if (answer.happened) return happenedBy(answer);
  }
}

/** A call a person said happened: what they said it returned, or that they confirmed it. */
function happenedBy(answer: Answer): Settled {
  return {
    status: 'done',
    rung: 'person',
    output: answer.result ?? JSON.stringify({ ok: true, confirmedBy: answer.by ?? 'a person' }),
  };
}
