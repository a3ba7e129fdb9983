// The workflow-task timeouts the engine asks every suite to start its runs with.

/**
 * Workflow-task timeout for runs under a harness: a task whose worker died is handed out again after
 * this long. As long as the activities' timeouts, so a batch resumes no later than with 2 s (its runs
 * parked in an activity wait 4 s anyway), and twice the room for a live worker's task on a busy machine.
 */
export const SWEEP_WORKFLOW_TASK_TIMEOUT = '4s';

/**
 * The workflow-task timeout of rows whose Temporal server dies while the worker lives (`serverDies:
 * 'worker-survives'`): a run parked early waits while the rest of its batch parks and the server restarts.
 */
export const SERVER_DIES_WORKFLOW_TASK_TIMEOUT = '60s';
