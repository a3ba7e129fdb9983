// What earlier executions of a run did, read from their histories: the model's replies, and each
// attempt at a tool call. An execution that a reset or a workflow retry started reads them before it
// asks the model or sends a call again.
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { canonicalJson } from '../common/canonical-json';
import { activitiesOf, type PayloadDecoder, type ScheduledActivity } from '../common/history-events';
import { resetsOf, retryOf } from '../common/operations';
import type {
  ChatMessage,
  LookupResponse,
  ModelCallRequest,
  ModelReply,
  ModelRequest,
  RunExecution,
  ToolRequest,
  ToolResponse,
} from '../workflows/types';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Payload = temporal.api.common.v1.IPayload;

/** One earlier execution of a run: its Temporal run id and its history. */
export interface EarlierExecution {
  runId: string;
  events: readonly HistoryEvent[];
}

/**
 * Whether this execution may have earlier ones: a reset keeps the run id recorded when the run started
 * (`originalExecutionRunId`) and gives the execution another, and a retry counts its attempt. A run
 * continued as new has neither: it carries its conversation in its input.
 */
export function hasEarlierExecutions(e: RunExecution): boolean {
  return e.runId !== e.originalExecutionRunId || e.attempt > 1;
}

/** The executions a run's history says it came from: the runs it was reset from, and the run it retries. */
export function earlierRunIds(events: readonly HistoryEvent[]): string[] {
  const ids = resetsOf(events).map((r) => r.fromRunId);
  const retry = retryOf(events);
  if (retry) ids.push(retry.fromRunId);
  return ids.filter((id) => id !== '');
}

/**
 * Every earlier execution of a run, latest first, found by following its history back: each reset
 * names the run it came from, and a retry the run it starts over, whose histories may name earlier
 * ones again.
 */
export async function earlierExecutions(
  client: Client,
  workflowId: string,
  runId: string,
): Promise<EarlierExecution[]> {
  const historyOf = async (id: string) => (await client.workflow.getHandle(workflowId, id).fetchHistory()).events ?? [];
  const seen = new Set<string>([runId]);
  const found: EarlierExecution[] = [];
  let next = earlierRunIds(await historyOf(runId));
  while (next.length > 0) {
    const further: string[] = [];
    for (const id of [...next].reverse()) {
      if (seen.has(id)) continue;
      seen.add(id);
      const events = await historyOf(id);
      found.push({ runId: id, events });
      further.push(...earlierRunIds(events));
    }
    next = further;
  }
  return found;
}

/** One model call an earlier execution completed: what it asked, what it got, and in which execution. */
export interface EarlierReply {
  runId: string;
  request: Pick<ModelRequest, 'model' | 'messages' | 'tools'>;
  reply: ModelReply;
}

/**
 * The model calls earlier executions completed, latest first. `conversationOf` rebuilds the whole
 * conversation a request names (by reference to the payload store, or inline in older runs).
 */
export async function earlierReplies(
  earlier: readonly EarlierExecution[],
  decode: PayloadDecoder,
  conversationOf: (request: ModelCallRequest) => Promise<ChatMessage[]> = async (r) => r.messages ?? [],
): Promise<EarlierReply[]> {
  const found: EarlierReply[] = [];
  for (const { runId, events } of earlier) {
    const calls = activitiesOf(events, 'callModel').reverse();
    for (const { input, ended } of calls) {
      if (ended.kind !== 'completed' || !input || !ended.result) continue;
      const request = (await decode(input)) as ModelCallRequest;
      const reply = (await decode(ended.result)) as ModelReply;
      const messages = await conversationOf(request);
      found.push({ runId, request: { model: request.model, messages, tools: request.tools }, reply });
    }
  }
  return found;
}

/**
 * The reply an earlier execution got to exactly this request (the same conversation, tools and
 * model), or none. The latest execution's comes first: it is the one acted on last. Pure.
 */
export function replyFromEarlier(
  earlier: readonly EarlierReply[],
  request: Pick<ModelRequest, 'model' | 'messages' | 'tools'>,
): EarlierReply | undefined {
  const asked = canonicalJson({ model: request.model, messages: request.messages, tools: request.tools });
  return earlier.find((e) => canonicalJson(e.request) === asked);
}

/**
 * What earlier executions know of one tool call (the same run id and call id): `done`, with the
 * response of an attempt that completed or the output of a lookup that found it; `unknown`, when an
 * attempt was sent and nobody learned how it ended; nothing when no attempt was sent, or every one
 * was refused.
 */
export type EarlierCall =
  | { kind: 'done'; runId: string; response: ToolResponse }
  /** `sentAt`: when an earlier execution first sent the call (ms since the epoch), so the key's life counts from then. */
  | { kind: 'unknown'; runId: string; sentAt: number };

/** What earlier executions (latest first) know of the call `req` names. */
export async function earlierCall(
  earlier: readonly EarlierExecution[],
  req: Pick<ToolRequest, 'runId' | 'callId'>,
  decode: PayloadDecoder,
): Promise<EarlierCall | undefined> {
  let unknownIn: string | undefined;
  // The key's life counts from the first time the call was sent (scheduled, at the latest sent).
  let sentAt = Number.POSITIVE_INFINITY;
  const same = async (input: Payload | undefined) => {
    if (!input) return false;
    const asked = (await decode(input)) as ToolRequest;
    return asked.runId === req.runId && asked.callId === req.callId;
  };
  for (const { runId, events } of earlier) {
    for (const { input, scheduledAt, ended } of activitiesOf(events, 'runTool')) {
      if (!(await same(input))) continue;
      sentAt = Math.min(sentAt, scheduledAt);
      if (ended.kind === 'completed' && ended.result)
        return { kind: 'done', runId, response: (await decode(ended.result)) as ToolResponse };
      // A non-retryable failure is the activity's refusal: by the loop's rules nothing happened.
      if (!refused(ended)) unknownIn ??= runId;
    }
    for (const { input, ended } of activitiesOf(events, 'lookupCall')) {
      if (ended.kind !== 'completed' || !ended.result || !(await same(input))) continue;
      const found = (await decode(ended.result)) as LookupResponse;
      if (found.happened)
        return {
          kind: 'done',
          runId,
          response: { output: found.output ?? JSON.stringify({ ok: true }), attempt: 1, replayed: false },
        };
    }
  }
  return unknownIn ? { kind: 'unknown', runId: unknownIn, sentAt } : undefined;
}

/** An attempt the receiver refused: by the loop's rules nothing happened. */
function refused(ended: ScheduledActivity['ended']): boolean {
  return ended.kind === 'failed' && ended.nonRetryable;
}
