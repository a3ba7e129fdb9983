// A person's operations on a run (reset it to an earlier workflow task, or cancel it), what a reset carried over and which attempt of a retried run it is: used by the clients (`npm run reset`, `cancel`, `status`) and by the sweep's engine.
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { eventTypeName } from './history-events';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type EventId = NonNullable<temporal.api.workflowservice.v1.IResetWorkflowExecutionRequest['workflowTaskFinishEventId']>;
const { ContinueAsNewInitiator, EventType, WorkflowTaskFailedCause } = temporal.api.enums.v1;

/**
 * Where a reset goes back to: the end of the run's last workflow task, of its first (the run starts
 * over from its input, keeping nothing it did), or of the workflow task that ends at an event id.
 */
export type ResetTarget = 'last-task' | 'first-task' | number;

/** Thrown for a reset target the run's history does not have. */
export class ResetTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResetTargetError';
  }
}

/** `last-task`, `first-task` or an event id; throws on anything else. */
export function parseResetTarget(text: string): ResetTarget {
  if (text === 'last-task' || text === 'first-task') return text;
  if (/^[1-9]\d*$/.test(text)) return Number(text);
  throw new ResetTargetError(`bad reset target ${JSON.stringify(text)}: last-task, first-task or an event id`);
}

/** The events that end a workflow task, which a reset may go back to (as the server accepts them). */
const TASK_ENDS = new Set<number>([
  EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
]);

const idOf = (e: HistoryEvent) => Number(e.eventId ?? 0);

/**
 * The event a reset to `to` names, read from the run's history: the last or first completed workflow
 * task, or the given event id if it ends a workflow task. The new run keeps every event before that
 * task, and runs the task and all after it again.
 */
export function resetEventId(events: readonly HistoryEvent[], to: ResetTarget): number {
  const completed = events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
  if (to === 'last-task' || to === 'first-task') {
    const end = to === 'last-task' ? completed.at(-1) : completed[0];
    if (!end) throw new ResetTargetError('the run has completed no workflow task yet: there is nothing to reset to');
    return idOf(end);
  }
  const event = events.find((e) => idOf(e) === to);
  if (!event) throw new ResetTargetError(`the run's history has no event ${to} (it has ${events.length})`);
  if (!TASK_ENDS.has(event.eventType ?? 0))
    throw new ResetTargetError(
      `event ${to} is ${eventTypeName(event.eventType)}: a reset goes back to the end of a workflow task (WorkflowTaskCompleted, TimedOut or Failed)`,
    );
  return to;
}

/** The run a workflow id names now; a clear error for an id the server does not know. */
async function currentRunId(client: Client, workflowId: string): Promise<string> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).runId;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new Error(`no run with workflow id ${workflowId}`);
    throw err;
  }
}

/** What a reset did: the run it came from, the new run, and the event it went back to. */
export interface ResetDone {
  workflowId: string;
  fromRunId: string;
  runId: string;
  eventId: number;
}

/**
 * Resets a run, as `temporal workflow reset` does: a new run of the same workflow id keeps the events
 * before `to`'s workflow task and runs the rest again; signals after that point are applied again. The
 * reason is recorded in the new run's history (`npm run status` shows it). Fails for a target the
 * history does not have.
 */
export async function resetRun(
  client: Client,
  workflowId: string,
  options: { to: ResetTarget; reason: string; identity?: string },
): Promise<ResetDone> {
  const fromRunId = await currentRunId(client, workflowId);
  const history = await client.workflow.getHandle(workflowId, fromRunId).fetchHistory();
  const eventId = resetEventId(history.events ?? [], options.to);
  const { runId } = await client.workflowService.resetWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId, runId: fromRunId },
    reason: options.reason,
    // protobufjs writes a number as an int64 as it writes a Long.
    workflowTaskFinishEventId: eventId as unknown as EventId,
    requestId: randomUUID(),
    identity: options.identity ?? client.options.identity,
  });
  return { workflowId, fromRunId, runId: runId ?? '', eventId };
}

/**
 * Asks a run to cancel: its workflow sees the cancellation and runs its own clean-up, if it has any.
 * An agent run has none: it ends cancelled at once, and a call it had in flight is asked to cancel
 * with its outcome unknown. Returns the run it asked.
 */
export async function cancelRun(client: Client, workflowId: string): Promise<{ workflowId: string; runId: string }> {
  const runId = await currentRunId(client, workflowId);
  await client.workflow.getHandle(workflowId, runId).cancel();
  return { workflowId, runId };
}

/** One reset a run's history records: where from, to which event, why, and what it kept. */
export interface ResetRecord {
  fromRunId: string;
  /** The first event the new run ran again (its reset point): everything before it was carried over. */
  atEventId: number;
  reason: string;
  carried: { activities: number; signals: number; timers: number };
  /** Signals sent after the reset point to the earlier run, applied again to this one. */
  reapplied: number;
}

/**
 * The resets a run's history records (a run reset twice has two), read from the history alone: the
 * workflow task the server failed with the cause "reset", which names the run it came from.
 */
export function resetsOf(events: readonly HistoryEvent[]): ResetRecord[] {
  const records: ResetRecord[] = [];
  events.forEach((e, i) => {
    const failed = e.workflowTaskFailedEventAttributes;
    if (failed?.cause !== WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW) return;
    const before = events.slice(0, i);
    const count = (type: number, list = before) => list.filter((x) => x.eventType === type).length;
    const next = events.findIndex((x, j) => j > i && x.workflowTaskFailedEventAttributes?.cause === failed.cause);
    const after = events.slice(i + 1, next === -1 ? undefined : next);
    records.push({
      fromRunId: failed.baseRunId ?? '',
      atEventId: idOf(e),
      reason: failed.failure?.message ?? '',
      carried: {
        activities: count(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED),
        signals: count(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED),
        timers: count(EventType.EVENT_TYPE_TIMER_FIRED),
      },
      reapplied: after.filter(
        (x) =>
          x.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED && idOf(x) < idOf(firstTaskAfter(after)),
      ).length,
    });
  });
  return records;
}

/** The first workflow task scheduled among `events` (signals re-applied by a reset come before it). */
function firstTaskAfter(events: readonly HistoryEvent[]): HistoryEvent {
  return (
    events.find((x) => x.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) ?? {
      eventId: Number.MAX_SAFE_INTEGER as unknown as EventId,
    }
  );
}

/** One line for people: `reset from run 1a2b… at event 9 (a bad tool result): carried 2 activities, 1 signal`. */
export function describeReset(r: ResetRecord): string {
  const n = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;
  const reapplied = r.reapplied > 0 ? `; ${n(r.reapplied, 'signal', 'signals')} applied again` : '';
  const carried = [
    n(r.carried.activities, 'completed activity', 'completed activities'),
    n(r.carried.signals, 'signal', 'signals'),
    n(r.carried.timers, 'fired timer', 'fired timers'),
  ].join(', ');
  return `reset from run ${r.fromRunId} at event ${r.atEventId}${r.reason ? ` (${r.reason})` : ''}: carried ${carried}${reapplied}`;
}

/** A run its retry policy started over: which attempt it is, after which run, and how that run failed. */
export interface RetryRecord {
  attempt: number;
  fromRunId: string;
  failure: string;
}

/**
 * Whether a run is a retry of an earlier one, read from its first event (the server records the
 * attempt, the run it continues and that run's failure); `null` for a first attempt, a continued-as-new
 * run or a reset run. A retried run starts over from its input: it keeps nothing the earlier run did.
 */
export function retryOf(events: readonly HistoryEvent[]): RetryRecord | null {
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  if (started?.initiator !== ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_RETRY) return null;
  return {
    attempt: started.attempt ?? 1,
    fromRunId: started.continuedExecutionRunId ?? '',
    failure: started.continuedFailure?.message ?? '',
  };
}

/** One line for `npm run status`: `attempt 2, started over by its retry policy after run X failed: ...`. */
export function describeRetry(r: RetryRecord): string {
  return `attempt ${r.attempt}, started over by its retry policy after run ${r.fromRunId} failed${r.failure ? `: ${r.failure}` : ''}; its history carried nothing over`;
}
