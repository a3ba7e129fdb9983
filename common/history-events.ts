// How people read a history event's type.
import { temporal } from '@temporalio/proto';

/** `EVENT_TYPE_WORKFLOW_TASK_COMPLETED` as people write it: `WorkflowTaskCompleted`. */
export function eventTypeName(type: number | null | undefined): string {
  return (temporal.api.enums.v1.EventType[type ?? 0] ?? String(type))
    .replace(/^EVENT_TYPE_/, '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}
