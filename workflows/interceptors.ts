import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { crashPoints } from './sinks';

/**
 * Reports `workflow.decided` at the end of every activation that decided something (not a query, not a
 * cache eviction): the workflow task has made its commands and the worker has not yet reported them.
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
          if (decides) {
            const kinds = input.commands.map((c) => Object.keys(c).find((k) => k !== 'userMetadata') ?? '?');
            crashPoints.reached('workflow.decided', kinds.join(',') || 'nothing');
          }
          return next(input);
        },
      },
    ],
  };
};
