// The order example's sweep config, naive or fixed: the shop, how a run starts, and how damage is counted.
import { defineSweep, type SweepConfig } from '../../sweep';
import { createActivities } from './activities';
import { startShop, type Shop } from './shop';
import type { Order } from './workflows';

/**
 * The order example's sweep config, naive (no keys, a shop that acts on every request) or fixed
 * (`keyedActivities` gives every call a key, a shop that honours them). Everything here is what a user
 * writes for their own workflow: start the receiver, start a run, count from the receiver's records.
 */
export function orderSweep(fixed: boolean): SweepConfig {
  let shop: Shop | undefined;
  return defineSweep({
    name: fixed ? 'order-fixed' : 'order-naive',
    label: fixed ? 'order, keys the shop honours' : 'order, naive',
    workflowsPath: require.resolve('./workflows'),
    activities: () => createActivities(process.env.SHOP_URL!, { keys: fixed }),
    async setup() {
      shop = await startShop({ honourKeys: fixed });
      return { env: { SHOP_URL: shop.url } };
    },
    teardown: () => shop?.close(),
    start: ({ client, taskQueue, workflowId, workflowTaskTimeout }) => {
      const order: Order = { id: workflowId, amount: 750, items: ['kettle'], email: 'ada@example.com' };
      const workflow = fixed ? 'keyedOrderWorkflow' : 'orderWorkflow';
      return client.workflow.start(workflow, { taskQueue, workflowId, workflowTaskTimeout, args: [order] });
    },
    check: ({ workflowId }) => shop!.damage(workflowId),
    // The manager: approves each large order when its run waits (a repeated approval is harmless).
    person: async ({ client, workflowId, signals }) => {
      if (signals.includes('approve')) await client.workflow.getHandle(workflowId).signal('approve');
    },
  });
}

/**
 * The same order with its shop as a receiver the sweep hosts (`receivers`): a process of its own that
 * keeps its records, and its answers by key, on disk, so that the sweep's receiver faults can strike it
 * (it dies after it acted, before its reply; it is slower than the activities' timeout). A run's
 * damage is asked of the shop that served it.
 */
export function orderSweepOnHostedShop(fixed: boolean): SweepConfig {
  const { setup: _setup, teardown: _teardown, ...order } = orderSweep(fixed);
  return defineSweep({
    ...order,
    receivers: [
      {
        name: 'shop',
        script: require.resolve('./shop-main'),
        urlEnv: 'SHOP_URL',
        activities: ['charge', 'reserve', 'sendConfirmation'],
        env: { HONOUR_KEYS: fixed ? '1' : '0' },
      },
    ],
    check: async ({ workflowId, receivers }) => {
      const res = await fetch(`${receivers.shop}/damage?order=${encodeURIComponent(workflowId)}`);
      if (!res.ok) throw new Error(`the shop did not say what it did for ${workflowId}: ${res.status}`);
      return (await res.json()) as { dups: number; missing: number };
    },
  });
}
