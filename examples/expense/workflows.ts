// An expense workflow as a Temporal user would write it (create, a person decides, pay), and the same
// with a key on every call.
import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import { keyedActivities } from '../../lib/workflow';
import type { ExpenseActivities } from './activities';

/** A person approves or rejects the expense. */
export const decideSignal = defineSignal<[{ approved: boolean }]>('decide');

// Production values, and Temporal's default retry policy: a failing call is retried for ever.
const activityOptions = { startToCloseTimeout: '5 minutes' } as const;

/** Creates the expense, waits for a person's decision, and pays it if approved. */
export async function expenseWorkflow(id: string, amount: number): Promise<string> {
  return handleExpense(id, amount, proxyActivities<ExpenseActivities>(activityOptions));
}

/** The same expense with a key on every call (made from the expense id and the call's place), which the service honours. */
export async function keyedExpenseWorkflow(id: string, amount: number): Promise<string> {
  const service = keyedActivities<ExpenseActivities>({
    ...activityOptions,
    owner: id,
    calls: { createExpense: { effect: 'keyed' }, payment: { effect: 'keyed' } },
  });
  return handleExpense(id, amount, service);
}

async function handleExpense(id: string, amount: number, { createExpense, payment }: ExpenseActivities) {
  await createExpense(id, amount);
  let decision: { approved: boolean } | undefined;
  setHandler(decideSignal, (d) => {
    decision ??= d;
  });
  await condition(() => decision !== undefined);
  if (!decision!.approved) return 'REJECTED';
  await payment(id);
  return 'COMPLETED';
}
