// The order workflow's next build, changed carelessly: it reserves the stock before it charges. A run
// that its old build had already taken past the charge meets other commands on replay.
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
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
  // The change: reserve first, so that an order out of stock is never charged.
  await reserve(order.id, order.items);
  const payment = await charge(order.id, order.amount);
  await sendConfirmation(order.id, order.email, payment);
  return payment;
}
