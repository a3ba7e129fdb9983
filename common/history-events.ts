// How a history's events are read: their types as people write them, their payloads as the worker wrote them.
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** A history payload decoded into the value the worker wrote. */
export type PayloadDecoder = (payload: temporal.api.common.v1.IPayload) => Promise<unknown>;

/**
 * Decodes a history's payloads with the client's data converter, codecs first: an encrypted history
 * reads as the worker wrote it, where the client has the worker's codec.
 */
export function payloadDecoder(client: Client): PayloadDecoder {
  const converter = client.options.loadedDataConverter;
  return async (payload) => {
    let decoded = [payload];
    for (const codec of [...converter.payloadCodecs].reverse()) decoded = await codec.decode(decoded);
    return converter.payloadConverter.fromPayload(decoded[0]!);
  };
}

/** `EVENT_TYPE_WORKFLOW_TASK_COMPLETED` as people write it: `WorkflowTaskCompleted`. */
export function eventTypeName(type: number | null | undefined): string {
  return (temporal.api.enums.v1.EventType[type ?? 0] ?? String(type))
    .replace(/^EVENT_TYPE_/, '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}
