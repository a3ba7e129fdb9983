// The agent's activity timeouts under the sweep, and its slow tracker's pacing.

/** Activity pacing for runs under a harness: a dead attempt is noticed in seconds, retried at once. */
export const SWEEP_TIMEOUTS = { modelMs: 4_000, toolMs: 4_000, turnMs: 4_000, retryInitialMs: 100 };

/**
 * Activity pacing for runs whose tools are over MCP. A write can wait at the MCP server, parked, until
 * every other run of its batch is parked too and the harness kills the server; a long start-to-close
 * timeout lets it wait, and the heartbeat still notices a dead worker within seconds.
 */
export const SWEEP_MCP_TIMEOUTS = { ...SWEEP_TIMEOUTS, toolMs: 120_000, heartbeatMs: 4_000 };

/**
 * Timeouts of the rows whose Temporal server dies while the worker lives. A run parked at
 * its point waits there while the rest of its batch parks and the server restarts; with the sweep's
 * 4 s timeouts the server would give up on a live attempt meanwhile. Nothing here needs a timeout to
 * recover: the worker that holds the attempt is alive and reports it once the server is back.
 */
export const SERVER_DIES_TIMEOUTS = { modelMs: 60_000, toolMs: 60_000, turnMs: 60_000, retryInitialMs: 100 };

/**
 * The sweep's slow trackers. A run's first write is held before it commits until the tracker has
 * answered another request of the run (the caller gave up after the tool's 4 s timeout and came back:
 * a retry or a lookup), so no clock decides what a run does. `holdCapMs` only keeps a run whose
 * caller never comes back from waiting for ever; a hold that ends there makes its scenario an error.
 *
 * The tracker that states its commit deadline (the "waits out the deadline" row) commits a request
 * within 7 s of its arrival or never; the ladder waits that long before it trusts "not found". Whether
 * the held write commits or passes its deadline there, the call happens once. The other slow trackers
 * have a deadline no held write reaches (it is past the cap), so a late caller cannot change their
 * counts.
 */
export const SLOW_RECEIVER = { holdCapMs: 30_000, statedDeadlineMs: 7_000, unreachedDeadlineMs: 60_000 };

/**
 * The sweep's partitions (`faults/partition.ts`): a run's first write, or its reply, is lost until the
 * run comes back after the tool's 4 s timeout. `capMs` only keeps a run that never comes back from
 * holding its connection for ever; a partition that ends there makes its scenario an error.
 */
export const PARTITION = { capMs: 30_000 };
