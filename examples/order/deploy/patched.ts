// The order workflow's next build, with the same change behind patched(): a run its old build took past
// the point of the change keeps the old order on replay; a run that had not got there takes the new one.
import { patched } from '@temporalio/workflow';
import type { ShopActivities } from '../activities';
import { approval, orderShop, type Order } from '../steps';

// The same two workflows as the first build (its shop, its approval), with the steps changed.
export async function orderWorkflow(order: Order): Promise<string> {
  return takeOrder(order, orderShop(order, false));
}

export async function keyedOrderWorkflow(order: Order): Promise<string> {
  return takeOrder(order, orderShop(order, true));
}

async function takeOrder(order: Order, { charge, reserve, sendConfirmation }: ShopActivities): Promise<string> {
  await approval(order);
  let payment: string;
  if (patched('reserve-before-charge')) {
    // The change: reserve first, so that an order out of stock is never charged.
    await reserve(order.id, order.items);
    payment = await charge(order.id, order.amount);
  } else {
    payment = await charge(order.id, order.amount);
    await reserve(order.id, order.items);
  }
  await sendConfirmation(order.id, order.email, payment);
  return payment;
}
