import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { crashPoints } from './sinks';

/**
 * Reports `workflow.decided` at the end of every activation that made commands (not a query, not a
 * cache eviction): the workflow task has made its commands and the worker has not yet reported them.
 *
 * A task that decides nothing (it only waits, say for a person) is not a point of its own: a kill
 * there leaves the world as a kill at the point the task passed just before (`question.asked`,
 * `approval.pending`), and whether such a task happens at all depends on when a signal arrives.
 */
export const interceptors: WorkflowInterceptorsFactory = () => {
  let decides = false;
  return {
    internals: [
      {
        activate(input, next) {
          const jobs = input.activation.jobs ?? [];
          decides = jobs.some((job) => !job.queryWorkflow && !job.removeFromCache);
          return next(input);
        },
        concludeActivation(input, next) {
          const kinds = input.commands.map((c) => Object.keys(c).find((k) => k !== 'userMetadata') ?? '?');
          if (decides && kinds.length > 0) crashPoints.reached('workflow.decided', kinds.join(','));
          return next(input);
        },
      },
    ],
  };
};
