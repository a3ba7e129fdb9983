import type { WorkerOptions } from '@temporalio/worker';

/**
 * Worker settings for crash harnesses. The high limits keep parked tasks from starving the scenarios
 * that share the process: a parked run holds its slot and its place in the workflow cache until the
 * kill (with the cache off, the SDK core still holds a parked run in a cache of one, and every other
 * run waits behind it).
 */
export const SWEEP_WORKER_TUNING: Partial<WorkerOptions> = {
  maxCachedWorkflows: 5000,
  // A dead worker's runs are taken off its sticky queue right after the kill (`moveOffDeadWorker`),
  // so this only decides how long a live worker may take to pick up its own sticky task before the
  // server sends it to the normal queue: long, so that a busy machine never makes that happen.
  stickyQueueScheduleToStartTimeout: '10s',
  maxConcurrentActivityTaskExecutions: 2000,
  maxConcurrentWorkflowTaskExecutions: 1000,
  maxConcurrentLocalActivityExecutions: 10,
  shutdownGraceTime: '1s',
  // Heartbeats reach the server every 200 ms, far inside the MCP runs' heartbeat timeout even on a
  // loaded machine: a live activity must never time out, or the sweep stops being deterministic.
  maxHeartbeatThrottleInterval: '200ms',
};

/** Workflow tasks at once in a generation that parks nothing (see `worker-main.ts`). */
export const FINISHING_WORKFLOW_TASKS = 16;

/** Activity pacing for runs under a harness: a dead attempt is noticed in seconds, retried at once. */
export const SWEEP_TIMEOUTS = { modelMs: 4_000, toolMs: 4_000, turnMs: 4_000, retryInitialMs: 100 };

/**
 * Workflow-task timeout for runs under a harness: a task whose worker died is handed out again after
 * this long. As long as the activities' timeouts, so a batch resumes no later than with 2 s (its runs
 * parked in an activity wait 4 s anyway), and twice the room for a live worker's task on a busy machine.
 */
export const SWEEP_WORKFLOW_TASK_TIMEOUT = '4s';

/**
 * Activity pacing for runs whose tools are over MCP. A write can wait at the MCP server, parked, until
 * every other run of its batch is parked too and the harness kills the server; a long start-to-close
 * timeout lets it wait, and the heartbeat still notices a dead worker within seconds.
 */
export const SWEEP_MCP_TIMEOUTS = { ...SWEEP_TIMEOUTS, toolMs: 120_000, heartbeatMs: 4_000 };

/**
 * The sweep's slow trackers (issue 10.3): a run's first write is held before it commits until the tracker
 * answers another request of the run (the caller gave up after the tool's 4 s timeout and came back),
 * or 6 s at most; a request commits within 7 s of its arrival or never. The 6 s lies between the
 * caller's timeout-driven steps (4 s, 8 s after the write was sent), so the hold never ends on the
 * same instant as one of them and a run does the same thing on a busy machine.
 */
export const SLOW_RECEIVER = { holdMs: 6_000, commitDeadlineMs: 7_000 };

/**
 * Timeouts of the rows whose Temporal server dies while the worker lives (issue 10.2). A run parked at
 * its point waits there while the rest of its batch parks and the server restarts; with the sweep's
 * 4 s timeouts the server would give up on a live attempt meanwhile. Nothing here needs a timeout to
 * recover: the worker that holds the attempt is alive and reports it once the server is back.
 */
export const SERVER_DIES_TIMEOUTS = { modelMs: 60_000, toolMs: 60_000, turnMs: 60_000, retryInitialMs: 100 };
/** The workflow-task timeout of those rows, for the same reason. */
export const SERVER_DIES_WORKFLOW_TASK_TIMEOUT = '60s';
