import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { crashPoints } from './sinks';

/**
 * Commands that change nothing a kill could repeat: those that publish what the run waits for (memo,
 * search attributes), and the marker that records which version of the code made the history (a patch).
 */
const BOOKKEEPING = new Set(['modifyWorkflowProperties', 'upsertWorkflowSearchAttributes', 'setPatchMarker']);

/**
 * Reports `workflow.decided` at the end of every activation that made commands (not a query, not a
 * cache eviction): the workflow task has made its commands and the worker has not yet reported them.
 *
 * A task that decides nothing (it only waits, say for a person, and publishes that in its memo) is
 * not a point of its own: a kill there leaves the world as a kill at the point the task passed just
 * before (`question.asked`, `approval.pending`), and whether such a task happens at all depends on
 * when a signal arrives. For the same reason bookkeeping commands are left out of a point's detail.
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
          const kinds = input.commands.map((c) => Object.keys(c).find((k) => k !== 'userMetadata') ?? '?').filter((k) => !BOOKKEEPING.has(k));
          if (decides && kinds.length > 0) crashPoints.reached('workflow.decided', kinds.join(','));
          return next(input);
        },
      },
    ],
  };
};
