// A person terminates the run at each kill.
import { TerminatedFailure } from '@temporalio/common';
import type { Fault } from './fault';

/**
 * At each kill, once the worker is dead, a person terminates the run (`TerminateWorkflowExecution`):
 * nothing of it runs again. Its end is `terminated`, which is no other end than its clean run's, and
 * the suite counts what it leaves half done. Nothing runs after the stop, so nothing is killed twice.
 */
export const terminate: Fault = {
  name: 'terminate',
  kind: 'terminate',
  target: 'run',
  summary: 'a person terminates the run',
  firstPassOnly: true,
  async atKill({ client, workflowId, reason }) {
    await client.workflow.getHandle(workflowId).terminate(reason);
    return 'terminated';
  },
  stops: { end: 'terminated', is: (error) => (error as Error & { cause?: Error }).cause instanceof TerminatedFailure },
};
