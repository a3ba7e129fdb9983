// The expense example's sweep config, naive or keyed: the service, how a run starts, and how damage is counted.
import { defineSweep, type SweepConfig } from '../../sweep';
import { createActivities } from './activities';
import { startExpenseService, type ExpenseService } from './service';

/**
 * The expense example's sweep config, naive (no keys: a retry of a call that succeeded is refused for
 * good, and the run is stuck) or keyed (`keyedActivities`; the service answers a key it has seen with
 * its first answer). The workflow is swept as written, with its 5-minute timeouts.
 */
export function expenseSweep(keyed: boolean): SweepConfig {
  let service: ExpenseService | undefined;
  return defineSweep({
    name: keyed ? 'expense-keyed' : 'expense-naive',
    label: keyed ? 'expense, keys the service honours' : 'expense, naive',
    workflowsPath: require.resolve('./workflows'),
    activities: () => createActivities(process.env.EXPENSE_URL!, { keys: keyed }),
    async setup() {
      service = await startExpenseService({ honourKeys: keyed });
      return { env: { EXPENSE_URL: service.url } };
    },
    teardown: () => service?.close(),
    start: ({ client, taskQueue, workflowId, workflowTaskTimeout }) =>
      client.workflow.start(keyed ? 'keyedExpenseWorkflow' : 'expenseWorkflow', {
        taskQueue,
        workflowId,
        workflowTaskTimeout,
        args: [workflowId, 120],
      }),
    check: ({ workflowId }) => service!.damage(workflowId),
    // The person approves each expense when its run waits (a repeated decision is ignored).
    person: async ({ client, workflowId, signals }) => {
      if (signals.includes('decide')) await client.workflow.getHandle(workflowId).signal('decide', { approved: true });
    },
  });
}
