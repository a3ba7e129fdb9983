// How the sweep chooses its lanes by itself (`--lanes auto`), as pure rules, and its meter of idle cores.
import os from 'node:os';
import { IdleMeter, LANE_CORES, laneLimit, shouldAddLane, shouldDropLane } from '../sweep/engine/lane-count';

describe('lanes chosen by the sweep', () => {
  test('one lane per 1.5 cores, at least one: a 2-core machine runs one, as measured there', () => {
    expect([1, 2, 3, 4, 8, 16].map(laneLimit)).toEqual([1, 1, 2, 2, 5, 10]);
  });

  test("a lane more starts only below the limit, with a batch waiting, and a lane's worth of idle cores", () => {
    const busy = { running: 1, cores: 8, idleCores: 6, batchesWaiting: 3 };
    expect(shouldAddLane(busy)).toBe(true);
    expect(shouldAddLane({ ...busy, idleCores: LANE_CORES - 0.1 })).toBe(false); // other work took the cores
    expect(shouldAddLane({ ...busy, batchesWaiting: 0 })).toBe(false);
    expect(shouldAddLane({ ...busy, running: laneLimit(8) })).toBe(false);
    expect(shouldAddLane({ running: 1, cores: 2, idleCores: 2, batchesWaiting: 5 })).toBe(false);
  });

  test('a lane beyond the first ends before its next batch when the machine has no core to spare; the first never does', () => {
    expect(shouldDropLane({ lane: 1, idleCores: 0.1 })).toBe(true);
    expect(shouldDropLane({ lane: 1, idleCores: 1 })).toBe(false);
    expect(shouldDropLane({ lane: 0, idleCores: 0 })).toBe(false);
  });

  test('the meter reads idle cores between 0 and the number of cores, and fewer while a core spins', () => {
    const cores = os.cpus().length;
    const meter = new IdleMeter();
    const until = Date.now() + 300;
    while (Date.now() < until); // keep one core busy for the window
    const spinning = meter.sample();
    expect(spinning).toBeGreaterThanOrEqual(0);
    expect(spinning).toBeLessThanOrEqual(cores - 0.5);
  });
});
