// Worker settings for the processes a crash harness starts: one process parks many runs at once.
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

/** Workflow tasks at once in a generation that parks nothing (see `crash-worker.ts`). */
export const FINISHING_WORKFLOW_TASKS = 16;
