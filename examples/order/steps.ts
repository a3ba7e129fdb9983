// The order's parts that every build of its workflows shares: the order, the manager's approval, and
// the shop as a workflow calls it.
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

/** The shop as the workflow calls it: plain activities, or with a key on every call (`keyed`). */
export function orderShop(order: Order, keyed: boolean): ShopActivities {
  if (!keyed) return proxyActivities<ShopActivities>(activityOptions);
  return keyedActivities<ShopActivities>({
    ...activityOptions,
    owner: order.id,
    calls: { charge: { effect: 'keyed' }, reserve: { effect: 'keyed' }, sendConfirmation: { effect: 'keyed' } },
  });
}

/** Waits until a manager approves the order, if it is large (the `approve` signal). */
export async function approval(order: Order): Promise<void> {
  let approved = order.amount < 500;
  setHandler(approveSignal, () => {
    approved = true;
  });
  await condition(() => approved);
}
