// The activity timeouts of a swept run: production values lowered to what a sweep can wait, unless the config keeps its own.
import type { Client } from '@temporalio/client';
import { ACTIVITY_CAPS_HEADER, capsHeader, type ActivityCaps } from '../plugin/activity-caps';
import type { SuiteRow } from '../engine/suite';
import { serverDeathOf } from '../faults';
import { clientWithStartHeader } from '../engine/start-headers';

/**
 * The caps of a row whose worker dies: a kill inside an activity is noticed after 4 s (as the agent's
 * own runs under the sweep), a retry waits 100 ms to 1 s, and a timer (a reminder due in two days, a
 * `condition` with a timeout) fires after at most 1 s.
 */
export const SWEEP_ACTIVITY_CAPS: ActivityCaps = {
  startToCloseMs: 4_000,
  heartbeatMs: 4_000,
  retryInitialMs: 100,
  retryMaxMs: 1_000,
  timerMs: 1_000,
};

/**
 * The caps of a row whose server dies while the worker lives (`server-dies:worker-survives`): a run
 * parked at its point waits while the rest of its batch parks and the server restarts, and a live
 * attempt must not time out meanwhile.
 */
export const SERVER_DIES_ACTIVITY_CAPS: ActivityCaps = {
  ...SWEEP_ACTIVITY_CAPS,
  startToCloseMs: 60_000,
  heartbeatMs: 60_000,
};

/** The caps of a row's runs. */
export function rowCaps(row: Pick<SuiteRow, 'faults'>): ActivityCaps {
  return serverDeathOf(row) === 'worker-survives' ? SERVER_DIES_ACTIVITY_CAPS : SWEEP_ACTIVITY_CAPS;
}

/** What the report says of the caps. */
export function describeCaps(caps: ActivityCaps): string {
  const s = (ms: number) => (ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`);
  return (
    `activity timeouts capped for the sweep: start-to-close and heartbeat at most ${s(caps.startToCloseMs)}, ` +
    `retries after ${s(caps.retryInitialMs)} and at most ${s(caps.retryMaxMs)} apart` +
    (caps.timerMs !== undefined ? `, timers at most ${s(caps.timerMs)}` : '') +
    ` (activityTimeouts: 'own' in the config keeps yours)`
  );
}

/**
 * A client on the same connection and namespace whose every workflow start carries `caps` (the
 * plugin's workflow interceptors apply them). Made once per client and caps.
 */
export function clientWithCaps(client: Client, caps: ActivityCaps): Client {
  return clientWithStartHeader(client, ACTIVITY_CAPS_HEADER, capsHeader(caps));
}
