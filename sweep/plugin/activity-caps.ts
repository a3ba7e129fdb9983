// Time under the sweep: the activity timeouts and timers a run started by the sweep uses, at most, whatever its code says.
import type { ActivityOptions, LocalActivityOptions, Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import { msOptionalToNumber } from '@temporalio/common/lib/time';

/**
 * The start header that carries a run's caps. The sweep's client adds it to every run it starts; a
 * run without it (every run outside a sweep) keeps its own timeouts. The workflow reads it from its
 * start event, so a replay caps exactly as the first execution did, and passes it on to its children
 * and to its next run after continue-as-new.
 */
export const ACTIVITY_CAPS_HEADER = 'crash-sweep-activity-caps';

/**
 * The most time an activity of a swept run may take, in milliseconds. Production code gives an
 * activity minutes (`startToCloseTimeout: '5 minutes'`); a kill inside it would cost those minutes
 * before the retry. The sweep's receivers answer in milliseconds, so it lowers what is longer than
 * these, and keeps what is shorter.
 */
export interface ActivityCaps {
  /** Start-to-close (and, for an activity that sets none, its schedule-to-close's share of it). */
  startToCloseMs: number;
  /** Heartbeat timeout, for an activity that sets one. */
  heartbeatMs: number;
  /** The first retry's wait. */
  retryInitialMs: number;
  /** The longest wait between retries. */
  retryMaxMs: number;
  /**
   * The longest timer (`sleep`, and the timeout of a `condition`): a reminder due in two days fires
   * after this. Absent: timers are not touched.
   */
  timerMs?: number;
}

/** The header's value for `caps`. */
export function capsHeader(caps: ActivityCaps): Payload {
  return defaultPayloadConverter.toPayload(caps);
}

/** The caps a run's start headers carry, or `null` when it was not started by the sweep. */
export function capsFromHeaders(headers: Record<string, Payload> | undefined): ActivityCaps | null {
  const payload = headers?.[ACTIVITY_CAPS_HEADER];
  if (!payload) return null;
  const caps = defaultPayloadConverter.fromPayload<Partial<ActivityCaps>>(payload);
  const fields: Array<keyof ActivityCaps> = ['startToCloseMs', 'heartbeatMs', 'retryInitialMs', 'retryMaxMs'];
  const positive = (v: unknown) => typeof v === 'number' && v > 0;
  if (!fields.every((f) => positive(caps?.[f]))) return null;
  return caps.timerMs === undefined || positive(caps.timerMs) ? (caps as ActivityCaps) : null;
}

/** A timer's duration under `caps`: lowered to the cap when longer. */
export function capTimer(durationMs: number, caps: ActivityCaps): number {
  return caps.timerMs !== undefined && durationMs > caps.timerMs ? caps.timerMs : durationMs;
}

const lower = (own: number | undefined, cap: number) => (own === undefined ? cap : Math.min(own, cap));

/** The server's defaults for a retry policy that leaves them out. */
const SERVER_RETRY_INITIAL_MS = 1_000;
const SERVER_RETRY_MAX_FACTOR = 100;

/**
 * An activity's options under `caps`: every timeout and retry wait longer than its cap is lowered to
 * it; the rest (attempts, non-retryable errors, the backoff coefficient, schedule-to-close) is kept.
 */
export function capActivityOptions<O extends ActivityOptions | LocalActivityOptions>(
  options: O,
  caps: ActivityCaps,
): O {
  const own = (d: unknown) => msOptionalToNumber(d as ActivityOptions['startToCloseTimeout']);
  const scheduleToClose = own(options.scheduleToCloseTimeout);
  const startToClose = own(options.startToCloseTimeout) ?? scheduleToClose;
  const initial = own(options.retry?.initialInterval) ?? SERVER_RETRY_INITIAL_MS;
  const maximum = own(options.retry?.maximumInterval) ?? initial * SERVER_RETRY_MAX_FACTOR;
  const heartbeat = 'heartbeatTimeout' in options ? own(options.heartbeatTimeout) : undefined;
  return {
    ...options,
    startToCloseTimeout: lower(startToClose, caps.startToCloseMs),
    ...(heartbeat !== undefined ? { heartbeatTimeout: Math.min(heartbeat, caps.heartbeatMs) } : {}),
    retry: {
      ...options.retry,
      initialInterval: Math.min(initial, caps.retryInitialMs),
      maximumInterval: Math.max(Math.min(maximum, caps.retryMaxMs), Math.min(initial, caps.retryInitialMs)),
    },
  };
}
