// The audit of a scenario's history: every timeout must belong to a worker generation that was killed while it held the task.
import { temporal } from '@temporalio/proto';

const { RetryState } = temporal.api.enums.v1;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** What the audit knows of one worker generation of a batch. */
export interface GenerationRecord {
  /** The identity the server recorded for the tasks it started (`gen-LABEL@PID`). */
  identity: string;
  /** When the harness SIGKILLed it (ms since the epoch); 0 for the generation that finished the runs. */
  killedAt: number;
  /** The runs it parked at their crash point, and when (ms since the epoch). */
  parked: Map<string, number>;
}

/** The type of the activity a timed-out activity event belongs to, from its scheduled event ('' if not found). */
export function timedOutActivityType(events: HistoryEvent[], timedOut: HistoryEvent): string {
  const scheduledId = Number(timedOut.activityTaskTimedOutEventAttributes?.scheduledEventId ?? 0);
  return (
    events.find((e) => Number(e.eventId) === scheduledId)?.activityTaskScheduledEventAttributes?.activityType?.name ??
    ''
  );
}

/** A dead worker's sticky task may time out this long after the SIGKILL was sent and still be the kill's. */
const CLOCK_SLACK_MS = 50;

function timeMs(e: HistoryEvent): number {
  const t = e.eventTime;
  if (!t) return 0;
  return Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}

/**
 * Checks one run's history: every timed-out task must belong to a generation that was killed while
 * it held the task (its worker identity names the generation). A task of a live worker that timed
 * out (a slow machine, not a kill) is returned as a problem: its duplicates or questions would not
 * have been caused by a kill, so the scenario is an error of the sweep, never a count.
 *
 * An activity must have timed out after its generation parked the run or was killed: one that timed
 * out earlier, in the generation that later parked the run, was a live attempt too slow for its
 * timeout, whose retry ran beside it and may have acted twice. A workflow task of the generation that
 * parked the run counts whenever it timed out: a workflow task that times out is only run again, and
 * acts on nothing.
 */
export function auditHistory(
  workflowId: string,
  events: HistoryEvent[],
  generations: GenerationRecord[],
  /** Activity types that may time out in a live worker (their receiver is slower than their timeout: `SuiteRow.slowActivities`). */
  mayTimeOut: ReadonlySet<string> = new Set(),
  /** Attempts a worker took for the run after it parked it (`Generation.takenWhileParked`). */
  takenWhileParked: ReadonlyArray<{ activityId: string; activityType: string; attempt: number }> = [],
): string[] {
  const byId = new Map(events.map((e) => [Number(e.eventId), e]));
  const problems: string[] = [];
  const killedHolding = (identity: string | null | undefined, at: number, task: 'workflow' | 'activity') => {
    const gen = generations.find((g) => g.identity === identity);
    if (!gen || gen.killedAt === 0) return false;
    const parkedAt = gen.parked.get(workflowId);
    if (task === 'workflow' && parkedAt !== undefined) return true;
    // From the moment it parked the run, the generation held it until its kill: nothing ran for it.
    return at + CLOCK_SLACK_MS >= Math.min(gen.killedAt, parkedAt ?? Infinity);
  };
  for (const e of events) {
    const at = timeMs(e);
    const wft = e.workflowTaskTimedOutEventAttributes;
    if (wft) {
      const startedEvent = byId.get(Number(wft.startedEventId ?? 0));
      const started = startedEvent?.workflowTaskStartedEventAttributes;
      if (started && !started.identity) {
        // An Update's speculative workflow task: the server writes it into history only when it times out,
        // with no identity, so the worker that held it is not named. It may have gone to a poll the killed
        // generation left behind. A workflow task that times out is only run again and acts on nothing:
        // it is the kill's if a generation that parked the run was killed before it timed out.
        const killedBefore = generations.some(
          (g) => g.killedAt > 0 && g.parked.has(workflowId) && g.killedAt <= at + CLOCK_SLACK_MS,
        );
        if (!killedBefore)
          problems.push(
            `workflow task timed out at event ${e.eventId}, started by no named worker, with no kill before`,
          );
      } else if (started) {
        if (!killedHolding(started.identity, at, 'workflow'))
          problems.push(`workflow task timed out at event ${e.eventId} in live worker ${started.identity}`);
      } else if (!generations.some((g) => g.killedAt > 0 && g.killedAt <= at + CLOCK_SLACK_MS)) {
        // Never started: it waited on a sticky queue, which only a dead worker leaves unpolled.
        problems.push(`workflow task ${e.eventId} timed out before any worker was killed`);
      }
    }
    const act = e.activityTaskTimedOutEventAttributes;
    if (act && !mayTimeOut.has(timedOutActivityType(events, e))) {
      const started = byId.get(Number(act.startedEventId ?? 0))?.activityTaskStartedEventAttributes;
      if (!started || !killedHolding(started.identity, at, 'activity')) {
        problems.push(
          `activity timed out at event ${e.eventId} in live worker ${started?.identity ?? '(never started)'}`,
        );
      }
    }
  }
  problems.push(...spentByParkedWorkers(events, takenWhileParked));
  return problems;
}

/**
 * The calls that ran out of attempts after a worker that had parked the run took some of them while it
 * waited for its kill (the parked attempt timed out first, and its retries came back to it and held).
 * A kill at one instant spends one attempt; the batch's later kill spent more, so a call with a bounded
 * retry policy (a lookup's five, a harmless repeat's ten) may have given up where the fault alone would
 * not: what the run did next was the sweep's timing, not the kill. Attempts spent on a call that then
 * succeeded change nothing the table counts, and are not named.
 */
export function spentByParkedWorkers(
  events: readonly HistoryEvent[],
  taken: ReadonlyArray<{ activityId: string; activityType: string; attempt: number }>,
): string[] {
  if (taken.length === 0) return [];
  const gaveUp = new Set<number>([RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED, RetryState.RETRY_STATE_TIMEOUT]);
  const scheduled = new Map<number, { activityId: string; activityType: string }>();
  const problems: string[] = [];
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s)
      scheduled.set(Number(e.eventId), { activityId: s.activityId ?? '', activityType: s.activityType?.name ?? '' });
    const ended = e.activityTaskTimedOutEventAttributes ?? e.activityTaskFailedEventAttributes;
    if (!ended || !gaveUp.has(ended.retryState ?? 0)) continue;
    const call = scheduled.get(Number(ended.scheduledEventId ?? 0));
    const spent = taken.filter((t) => t.activityId === call?.activityId && t.activityType === call?.activityType);
    if (spent.length > 0)
      problems.push(
        `${call!.activityType} ran out of attempts at event ${e.eventId} after a parked worker, waiting for its kill, took ${spent.length} of them (attempt ${spent.map((t) => t.attempt).join(', ')}): the kill came after the call's timeout`,
      );
  }
  return problems;
}
