// An order workflow as a Temporal user would write it (a manager approves a large order, then it
// charges, reserves and mails), and the same workflow with a key on every call.
import type { ShopActivities } from './activities';
import { approval, orderShop, type Order } from './steps';

export { approveSignal, type Order } from './steps';

/** Takes an order: approval if it is large, then charge, reserve the stock, and mail a confirmation. */
export async function orderWorkflow(order: Order): Promise<string> {
  return takeOrder(order, orderShop(order, false));
}

/**
 * The same order with a key on every call: made from the order's id and the call's place, the same
 * for each attempt and each worker, sent by each activity (`activityKey()`); the shop honours it.
 */
export async function keyedOrderWorkflow(order: Order): Promise<string> {
  return takeOrder(order, orderShop(order, true));
}

async function takeOrder(order: Order, { charge, reserve, sendConfirmation }: ShopActivities): Promise<string> {
  await approval(order);
  const payment = await charge(order.id, order.amount);
  await reserve(order.id, order.items);
  await sendConfirmation(order.id, order.email, payment);
  return payment;
}
