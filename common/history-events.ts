// How a history's events are read: their types as people write them, their payloads as the worker wrote them.
import type { Client } from '@temporalio/client';
import { ExternalStorageRunner } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';

/** A history payload decoded into the value the worker wrote. */
export type PayloadDecoder = (payload: temporal.api.common.v1.IPayload) => Promise<unknown>;

/**
 * Decodes a history's payloads with the client's data converter: a reference to External Storage
 * read back from its driver first, then the codecs: an encrypted history, or one whose large payloads
 * are stored outside, reads as the worker wrote it, where the client has the worker's codec and store.
 */
export function payloadDecoder(client: Client): PayloadDecoder {
  const converter = client.options.loadedDataConverter;
  const storage = converter.externalStorage ? new ExternalStorageRunner(converter.externalStorage) : undefined;
  return async (payload) => {
    let decoded: temporal.api.common.v1.IPayload[] = [payload];
    if (storage) decoded = await storage.retrieve(decoded);
    for (const codec of [...converter.payloadCodecs].reverse()) decoded = await codec.decode(decoded);
    return converter.payloadConverter.fromPayload(decoded[0]!);
  };
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Payload = temporal.api.common.v1.IPayload;

/** One activity a history scheduled: its type, its input, when it was scheduled, and how it ended so far. */
export interface ScheduledActivity {
  type: string;
  input?: Payload;
  /** When it was scheduled, in ms since the epoch (no later than it was first sent). */
  scheduledAt: number;
  /** `open`: no end recorded (still running, or its worker died and the run moved on); `timed-out`. */
  ended:
    | { kind: 'completed'; result?: Payload }
    | { kind: 'failed'; nonRetryable: boolean }
    | { kind: 'timed-out' }
    | { kind: 'open' };
}

/** When an event was recorded, in ms since the epoch. */
function timeOf(e: HistoryEvent): number {
  return Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
}

/** Every activity a history scheduled (of one type, if given), in the order scheduled, each with how it ended. */
export function activitiesOf(events: readonly HistoryEvent[], type?: string): ScheduledActivity[] {
  const scheduled = new Map<number, ScheduledActivity>();
  const end = (id: unknown, ended: ScheduledActivity['ended']) => {
    const one = scheduled.get(Number(id));
    if (one) one.ended = ended;
  };
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    const name = s?.activityType?.name ?? '';
    if (s && (type === undefined || name === type))
      scheduled.set(Number(e.eventId), {
        type: name,
        input: s.input?.payloads?.[0] ?? undefined,
        scheduledAt: timeOf(e),
        ended: { kind: 'open' },
      });
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed)
      end(completed.scheduledEventId, { kind: 'completed', result: completed.result?.payloads?.[0] ?? undefined });
    const failed = e.activityTaskFailedEventAttributes;
    if (failed)
      end(failed.scheduledEventId, {
        kind: 'failed',
        nonRetryable: Boolean(failed.failure?.applicationFailureInfo?.nonRetryable),
      });
    const timedOut = e.activityTaskTimedOutEventAttributes;
    if (timedOut) end(timedOut.scheduledEventId, { kind: 'timed-out' });
  }
  return [...scheduled.values()];
}

/** `EVENT_TYPE_WORKFLOW_TASK_COMPLETED` as people write it: `WorkflowTaskCompleted`. */
export function eventTypeName(type: number | null | undefined): string {
  return (temporal.api.enums.v1.EventType[type ?? 0] ?? String(type))
    .replace(/^EVENT_TYPE_/, '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}

/**
 * Every execution of a chain, first to last: from its first run, following each continue-as-new to
 * the run it started. The client must allow large messages (`LARGE_MESSAGES`) for long histories.
 */
export async function chainHistories(
  client: Client,
  workflowId: string,
  firstRunId: string,
): Promise<HistoryEvent[][]> {
  const histories: HistoryEvent[][] = [];
  let runId: string | undefined = firstRunId;
  while (runId) {
    const events: HistoryEvent[] = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    histories.push(events);
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return histories;
}

/** A history's bytes as the server stores it (its events encoded), and its largest payload's. */
export function historySizes(events: readonly HistoryEvent[]): { bytes: number; largestPayload: number } {
  const bytes = temporal.api.history.v1.History.encode({ events: [...events] }).finish().length;
  let largestPayload = 0;
  const visit = (value: unknown): void => {
    if (!value || typeof value !== 'object') return;
    const data = (value as { data?: unknown }).data;
    if (data instanceof Uint8Array && 'metadata' in value) largestPayload = Math.max(largestPayload, data.length);
    for (const v of Object.values(value)) visit(v);
  };
  for (const e of events) visit(e);
  return { bytes, largestPayload };
}
