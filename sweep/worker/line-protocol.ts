/**
 * The line protocol between a crash harness and its worker process. The worker prints one JSON line
 * per event on stdout, prefixed so it cannot be confused with logs; the harness reads them.
 */
export const LINE_PREFIX = '@@crash ';

/** Where to park one workflow: the first point reached in this process that matches every given field. */
export interface KillTarget {
  /** The point's position among this workflow's points in this worker process, from 1. */
  index?: number;
  name?: string;
  detail?: string;
}

/** A worker process's instructions: which workflows to park where. Workflows not named run freely. */
export interface CrashPlan {
  targets: Record<string, KillTarget>;
  /**
   * Workflows whose tool calls fail at a point instead of going on: the first time each call (each
   * detail) reaches the named point in this process, the activity throws, as a tool whose server
   * died mid-call would.
   */
  faults?: Record<string, { name: string }>;
  /**
   * Points (`name detail`, the run's workflow id in a detail written `{workflowId}`) each named
   * workflow passes without counting them, and is never parked at: the setup of a connection or client
   * that only the first run of a worker process reaches (`clean-twice.ts`).
   */
  uncounted?: Record<string, string[]>;
}

/** What the worker reports. */
export type CrashEvent =
  | { type: 'ready' }
  | { type: 'point'; workflowId: string; index: number; name: string; detail: string }
  /** `at`: when the worker parked the run (ms since the epoch, the machine's clock). */
  | { type: 'parked'; workflowId: string; index: number; name: string; detail: string; at: number }
  /** An activity of this process outlived its timeout: the server gave up on a live attempt. */
  | { type: 'late'; workflowId: string; activityType: string; detail: string };

/** Parses one output line; `null` for a line that is not part of the protocol (a log line). */
export function parseEventLine(line: string): CrashEvent | null {
  if (!line.startsWith(LINE_PREFIX)) return null;
  return JSON.parse(line.slice(LINE_PREFIX.length)) as CrashEvent;
}

/** Whether a point matches a target. */
export function matches(target: KillTarget, index: number, name: string, detail: string): boolean {
  return (
    (target.index === undefined || target.index === index) &&
    (target.name === undefined || target.name === name) &&
    (target.detail === undefined || target.detail === detail)
  );
}
