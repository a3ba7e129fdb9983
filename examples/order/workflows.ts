// An order workflow as a Temporal user would write it: a manager approves a large order, then it charges, reserves and mails.
import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ShopActivities } from './activities';

/** An order: who pays how much for what. */
export interface Order {
  id: string;
  amount: number;
  items: string[];
  email: string;
}

/** A manager approves a large order before it is charged. */
export const approveSignal = defineSignal('approve');

const { charge, reserve, sendConfirmation } = proxyActivities<ShopActivities>({
  startToCloseTimeout: '4s',
  retry: { initialInterval: '100ms' },
});

/** Takes an order: approval if it is large, then charge, reserve the stock, and mail a confirmation. */
export async function orderWorkflow(order: Order): Promise<string> {
  let approved = order.amount < 500;
  setHandler(approveSignal, () => {
    approved = true;
  });
  await condition(() => approved);
  const payment = await charge(order.id, order.amount);
  await reserve(order.id, order.items);
  await sendConfirmation(order.id, order.email, payment);
  return payment;
}
