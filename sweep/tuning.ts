import type { WorkerOptions } from '@temporalio/worker';

/**
 * Worker settings for crash harnesses. With no workflow cache there is no sticky queue, so after a
 * kill the next workflow task goes straight to the normal queue instead of waiting out a sticky
 * timeout; the high limits keep parked tasks from starving the scenarios that share the process.
 */
export const SWEEP_WORKER_TUNING: Partial<WorkerOptions> = {
  maxCachedWorkflows: 0,
  maxConcurrentActivityTaskExecutions: 2000,
  maxConcurrentWorkflowTaskExecutions: 1000,
  maxConcurrentLocalActivityExecutions: 10,
  shutdownGraceTime: '1s',
};

/** Activity pacing for runs under a harness: a dead attempt is noticed in seconds, retried at once. */
export const SWEEP_TIMEOUTS = { modelMs: 4_000, toolMs: 4_000, retryInitialMs: 100 };

/** Workflow-task timeout for runs under a harness: a task whose worker died is handed out again quickly. */
export const SWEEP_WORKFLOW_TASK_TIMEOUT = '2s';
