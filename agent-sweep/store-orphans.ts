// Objects of the payload store that no history of a run names: what a kill between a store write and
// the history event that would have named it leaves behind.
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter, StorageDriverClaim, type Payload } from '@temporalio/common';
import { decodeReferencePayload, isReferencePayload } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import type { LocalStorageDriver } from '../store/local-driver';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Every payload anywhere in an event (inputs, results, memos, headers, failures' details). */
function payloadsIn(value: unknown, into: Payload[]): void {
  if (!value || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) payloadsIn(v, into);
    return;
  }
  const { data, metadata } = value as { data?: unknown; metadata?: unknown };
  if (data instanceof Uint8Array && metadata && typeof metadata === 'object') {
    into.push(value as Payload);
    return;
  }
  for (const v of Object.values(value)) payloadsIn(v, into);
}

/** The store's objects a decoded value names: `{ driver, claim: { object } }` anywhere in it. */
function refsIn(value: unknown, into: Array<{ driver: string; claim: Record<string, string> }>): void {
  if (!value || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) refsIn(v, into);
    return;
  }
  const ref = value as { driver?: unknown; claim?: { object?: unknown } };
  if (typeof ref.driver === 'string' && typeof ref.claim?.object === 'string') {
    into.push(ref as { driver: string; claim: Record<string, string> });
    return;
  }
  for (const v of Object.values(value)) refsIn(v, into);
}

/** Every execution of a workflow id, latest first, following continue-as-new back from the latest. */
async function executions(client: Client, workflowId: string): Promise<HistoryEvent[][]> {
  const histories: HistoryEvent[][] = [];
  let runId: string | undefined;
  for (;;) {
    const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    histories.push(events);
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    if (!runId) return histories;
  }
}

/**
 * How many of the objects the store holds for `workflowId` no history of the run names, directly (an
 * External Storage reference) or through what it names (a stored turn names the one before it and the
 * outputs it holds). Zero when the store holds nothing for the run. The sweep's own audit of its own
 * store (plain payloads, no codec): it reads the objects through the driver, not as a run would.
 */
export async function storeOrphans(client: Client, workflowId: string, driver: LocalStorageDriver): Promise<number> {
  const objects = await driver.objectsOf(workflowId);
  if (objects.length === 0) return 0;
  const named = new Set<string>();
  const pending: Array<{ driver: string; claim: Record<string, string> }> = [];
  for (const events of await executions(client, workflowId)) {
    const payloads: Payload[] = [];
    payloadsIn(events, payloads);
    for (const payload of payloads) {
      if (isReferencePayload(payload)) {
        const { driverName, claimData } = decodeReferencePayload(payload);
        pending.push({ driver: driverName, claim: claimData });
        continue;
      }
      let value: unknown;
      try {
        value = defaultPayloadConverter.fromPayload(payload);
      } catch {
        continue; // not a payload of ours (a failure's encoded details, a binary header)
      }
      refsIn(value, pending);
    }
  }
  // What a named object names in turn: a stored turn, a stored input or result.
  while (pending.length > 0) {
    const ref = pending.pop()!;
    if (named.has(ref.claim.object!)) continue;
    named.add(ref.claim.object!);
    const value = await driver
      .retrieve({}, [new StorageDriverClaim(ref.claim)])
      .then(([payload]) => defaultPayloadConverter.fromPayload(payload!))
      .catch(() => undefined);
    refsIn(value, pending);
  }
  return objects.filter((o) => !named.has(o.object)).length;
}
