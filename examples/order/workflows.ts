// An order workflow as a Temporal user would write it (a manager approves a large order, then it
// charges, reserves and mails), and the same workflow with a key on every call.
import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import { keyedActivities } from '../../lib/workflow';
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

// Production values: the payment service may be slow, so each call gets minutes. The sweep swept this
// unchanged: it caps the timeouts of the runs it starts (a kill costs 4 s there, not 5 minutes).
const activityOptions = { startToCloseTimeout: '5 minutes' } as const;

/** Takes an order: approval if it is large, then charge, reserve the stock, and mail a confirmation. */
export async function orderWorkflow(order: Order): Promise<string> {
  return takeOrder(order, proxyActivities<ShopActivities>(activityOptions));
}

/**
 * The same order with a key on every call: made from the order's id and the call's place, the same
 * for each attempt and each worker, sent by each activity (`activityKey()`); the shop honours it.
 */
export async function keyedOrderWorkflow(order: Order): Promise<string> {
  const shop = keyedActivities<ShopActivities>({
    ...activityOptions,
    owner: order.id,
    calls: { charge: { effect: 'keyed' }, reserve: { effect: 'keyed' }, sendConfirmation: { effect: 'keyed' } },
  });
  return takeOrder(order, shop);
}

async function takeOrder(order: Order, { charge, reserve, sendConfirmation }: ShopActivities): Promise<string> {
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
