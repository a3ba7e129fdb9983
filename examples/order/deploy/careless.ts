// The order workflow's next build, changed carelessly: it reserves the stock before it charges. A run
// that its old build had already taken past the charge meets other commands on replay.
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
  // The change: reserve first, so that an order out of stock is never charged.
  await reserve(order.id, order.items);
  const payment = await charge(order.id, order.amount);
  await sendConfirmation(order.id, order.email, payment);
  return payment;
}
