// A person cancels the run at each kill.
import { CancelledFailure } from '@temporalio/common';
import type { Fault } from './fault';

/**
 * At each kill, once the worker is dead, a person asks the run to cancel
 * (`RequestCancelWorkflowExecution`, as `npm run cancel` does); the fresh worker runs the workflow's own
 * clean-up, if it has any. Its end is `cancelled`, which is no other end than its clean run's, and the
 * suite counts what it leaves half done. Nothing runs after the stop, so nothing is killed twice.
 */
export const cancel: Fault = {
  name: 'cancel',
  kind: 'cancel',
  target: 'run',
  summary: 'a person cancels the run',
  firstPassOnly: true,
  inWorker: { operated: 'cancel' },
  async atKill({ client, workflowId }) {
    await client.workflow.getHandle(workflowId).cancel();
    return 'cancelled';
  },
  stops: { end: 'cancelled', is: (error) => (error as Error & { cause?: Error }).cause instanceof CancelledFailure },
};
