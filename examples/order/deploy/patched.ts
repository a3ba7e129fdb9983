// The order workflow's next build, with the same change behind patched(): a run its old build took past
// the point of the change keeps the old order on replay; a run that had not got there takes the new one.
import { condition, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import { keyedActivities } from '../../../lib/workflow';
import type { ShopActivities } from '../activities';
import { approveSignal, type Order } from '../workflows';

const activityOptions = { startToCloseTimeout: '5 minutes' } as const;

export async function orderWorkflow(order: Order): Promise<string> {
  return takeOrder(order, proxyActivities<ShopActivities>(activityOptions));
}

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
