// A person resets the run at each kill, to its last workflow task or its first.
import { resetRun, ResetTargetError } from '../../common/operations';
import type { Fault } from './fault';

/** Where a reset goes: the run's last workflow task before the point, or its first. */
export type ResetTo = 'last-task' | 'first-task';

/**
 * At each kill, once the worker is dead, a person resets the run (`ResetWorkflowExecution`, as
 * `npm run reset` and `temporal workflow reset` do) to its last workflow task before the point, or to
 * its first; the new run goes on in a fresh worker under the same workflow id. A run that has
 * completed no workflow task has nothing to reset to: it goes on as after a kill, and says so.
 */
export function reset(to: ResetTo): Fault {
  return {
    name: `reset:${to}`,
    kind: 'reset',
    target: 'run',
    summary: `a person resets the run to its ${to === 'last-task' ? 'last workflow task' : 'first workflow task'}`,
    async atKill({ client, workflowId, reason }) {
      try {
        const done = await resetRun(client, workflowId, { to, reason });
        return `reset to event ${done.eventId} (${to})`;
      } catch (err) {
        if (!(err instanceof ResetTargetError)) throw err;
        return `no reset: ${err.message}`;
      }
    },
  };
}
