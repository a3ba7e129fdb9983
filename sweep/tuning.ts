import type { WorkerOptions } from '@temporalio/worker';

/**
 * Worker settings for crash harnesses. The high limits keep parked tasks from starving the scenarios
 * that share the process: a parked run holds its slot and its place in the workflow cache until the
 * kill (with the cache off, the SDK core still holds a parked run in a cache of one, and every other
 * run waits behind it). A short sticky timeout makes a killed worker's runs move to the normal queue,
 * and so to the next worker, within a second.
 */
export const SWEEP_WORKER_TUNING: Partial<WorkerOptions> = {
  maxCachedWorkflows: 5000,
  stickyQueueScheduleToStartTimeout: '1s',
  maxConcurrentActivityTaskExecutions: 2000,
  maxConcurrentWorkflowTaskExecutions: 1000,
  maxConcurrentLocalActivityExecutions: 10,
  shutdownGraceTime: '1s',
};

/** Activity pacing for runs under a harness: a dead attempt is noticed in seconds, retried at once. */
export const SWEEP_TIMEOUTS = { modelMs: 4_000, toolMs: 4_000, turnMs: 4_000, retryInitialMs: 100 };

/** Workflow-task timeout for runs under a harness: a task whose worker died is handed out again quickly. */
export const SWEEP_WORKFLOW_TASK_TIMEOUT = '2s';
