// A call fails at a point, as a tool whose server died mid-call would, without any process dying.
import type { Fault } from './fault';

/**
 * The first time each call (each point detail) of a run reaches `point` in a worker process, the
 * point throws: the call fails as one whose receiver died mid-call would (after it acted, at
 * `tracker.accepted`), and the run's retry policy sends it again. A clean run retries.
 */
export function throwAtPoint(point: string): Fault {
  return {
    name: `throw-at-point:${point}`,
    kind: 'throw-at-point',
    target: 'activity',
    summary: `the first time each call reaches ${point}, it throws (its receiver died mid-call)`,
    tolerates: { retries: true },
    inWorker: { throwAt: point },
  };
}
