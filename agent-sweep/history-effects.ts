// The writes a run's history accounts for: every tool call in the replies it kept (for a model that changes its mind).
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { ExpectedEffect } from './effects';

interface FoundCall {
  id: string;
  function: { name: string };
}

function isToolCall(value: unknown): value is FoundCall {
  const v = value as FoundCall | null;
  return typeof v === 'object' && v !== null && typeof v.id === 'string' && typeof v.function?.name === 'string';
}

/** Every tool call found anywhere in a decoded value (a model reply, or a whole turn's messages). */
function collectCalls(value: unknown, into: Map<string, FoundCall>): void {
  if (Array.isArray(value)) {
    for (const v of value) collectCalls(v, into);
  } else if (typeof value === 'object' && value !== null) {
    if (isToolCall(value)) into.set(value.id, value);
    for (const v of Object.values(value)) collectCalls(v, into);
  }
}

/**
 * The writes a run's history accounts for: every `create_issue` and `comment_on_issue` call in the
 * model replies its activities reported (a model activity's reply, or a whole turn's). A model that
 * changes its mind makes the script's fixed list wrong: a repeated turn acts on calls of another
 * reply; counted against history, a call in history acted on twice is a duplicate, a call in history
 * never acted on is missing, and a write no call in history accounts for is an orphan.
 */
export async function effectsInHistory(client: Client, workflowId: string): Promise<ExpectedEffect[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const calls = new Map<string, FoundCall>();
  for (const e of history.events ?? []) {
    for (const payload of e.activityTaskCompletedEventAttributes?.result?.payloads ?? []) {
      collectCalls(defaultPayloadConverter.fromPayload(payload), calls);
    }
  }
  const effects: ExpectedEffect[] = [];
  for (const c of calls.values()) {
    if (c.function.name === 'create_issue') effects.push({ callId: c.id, kind: 'issue' });
    else if (c.function.name === 'comment_on_issue') effects.push({ callId: c.id, kind: 'comment' });
  }
  return effects;
}
