// The activity caps of a swept run, as pure logic: what is longer than its cap is lowered, the rest kept.
import {
  ACTIVITY_CAPS_HEADER,
  capActivityOptions,
  capsFromHeaders,
  capsHeader,
  capTimer,
} from '../sweep/plugin/activity-caps';
import { rowCaps, SERVER_DIES_ACTIVITY_CAPS, SWEEP_ACTIVITY_CAPS } from '../sweep/config/activity-timeouts';
import { serverDies } from '../sweep/faults';

const caps = SWEEP_ACTIVITY_CAPS;

describe('activity caps under the sweep', () => {
  test('production timeouts are lowered to the caps; the retry keeps its attempts, coefficient and non-retryable errors', () => {
    const options = capActivityOptions(
      {
        startToCloseTimeout: '5 minutes',
        heartbeatTimeout: '30s',
        retry: { maximumAttempts: 7, backoffCoefficient: 3, nonRetryableErrorTypes: ['Declined'] },
      },
      caps,
    );
    expect(options).toEqual({
      startToCloseTimeout: 4_000,
      heartbeatTimeout: 4_000,
      retry: {
        maximumAttempts: 7,
        backoffCoefficient: 3,
        nonRetryableErrorTypes: ['Declined'],
        initialInterval: 100,
        maximumInterval: 1_000,
      },
    });
  });

  test('what is shorter than its cap is kept', () => {
    expect(
      capActivityOptions({ startToCloseTimeout: '2s', retry: { initialInterval: '50ms', maximumInterval: 200 } }, caps),
    ).toEqual({ startToCloseTimeout: 2_000, retry: { initialInterval: 50, maximumInterval: 200 } });
  });

  test('an activity with only a schedule-to-close gets a start-to-close within it, and keeps its schedule-to-close', () => {
    expect(capActivityOptions({ scheduleToCloseTimeout: '1h' }, caps)).toMatchObject({
      scheduleToCloseTimeout: '1h',
      startToCloseTimeout: 4_000,
    });
    expect(capActivityOptions({ scheduleToCloseTimeout: '1s' }, caps)).toMatchObject({ startToCloseTimeout: 1_000 });
  });

  test('no heartbeat timeout is added to an activity that sets none', () => {
    expect(capActivityOptions({ startToCloseTimeout: '1m' }, caps)).not.toHaveProperty('heartbeatTimeout');
  });

  test('the start header carries the caps; a run without it, or with a malformed one, is not capped', () => {
    expect(capsFromHeaders({ [ACTIVITY_CAPS_HEADER]: capsHeader(caps) })).toEqual(caps);
    expect(capsFromHeaders({})).toBeNull();
    expect(capsFromHeaders(undefined)).toBeNull();
    const partial = capsHeader({ ...caps, retryMaxMs: -1 });
    expect(capsFromHeaders({ [ACTIVITY_CAPS_HEADER]: partial })).toBeNull();
  });

  test('a timer longer than the cap fires at the cap; a shorter one, or any timer of caps without a timer cap, is kept', () => {
    expect(capTimer(2 * 24 * 3600_000, caps)).toBe(1_000);
    expect(capTimer(250, caps)).toBe(250);
    const { timerMs: _, ...noTimer } = caps;
    expect(capTimer(2 * 24 * 3600_000, noTimer)).toBe(2 * 24 * 3600_000);
    // A header from before timers were capped still caps activities; a bad timer cap is refused.
    expect(capsFromHeaders({ [ACTIVITY_CAPS_HEADER]: capsHeader(noTimer) })).toEqual(noTimer);
    expect(capsFromHeaders({ [ACTIVITY_CAPS_HEADER]: capsHeader({ ...caps, timerMs: 0 }) })).toBeNull();
  });

  test('a row whose worker survives the server gets a minute, as a parked live attempt must outlast its batch', () => {
    expect(rowCaps({})).toBe(SWEEP_ACTIVITY_CAPS);
    expect(rowCaps({ faults: [serverDies('worker-dies')] })).toBe(SWEEP_ACTIVITY_CAPS);
    expect(rowCaps({ faults: [serverDies('worker-survives')] })).toBe(SERVER_DIES_ACTIVITY_CAPS);
    expect(SERVER_DIES_ACTIVITY_CAPS.startToCloseMs).toBe(60_000);
  });
});
