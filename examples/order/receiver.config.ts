// The fixed order example against its shop hosted by the sweep: the shop dies after it acts, before
// its reply; it is slower than the activities' timeout; the network loses the first write or its
// reply, and an operator shortens the stuck call's timeout. Its keys are on disk: no repeat acts twice.
import { defineSweep } from '../../sweep';
import { orderSweepOnHostedShop } from './sweep';

/** `npm run sweep -- --config examples/order/receiver.config.ts` */
export default defineSweep({
  ...orderSweepOnHostedShop(true),
  name: 'order-fixed-receiver',
  rows: [
    { name: 'order-fixed-shop-dies', label: 'order, keys the shop honours: shop dies', faults: ['receiver-dies:shop'] },
    { name: 'order-fixed-shop-slow', label: 'order, keys the shop honours: shop slow', faults: ['slow-receiver:shop'] },
    {
      name: 'order-fixed-request-lost',
      label: 'order, keys the shop honours: request lost',
      faults: ['partition:shop:request-lost'],
    },
    {
      name: 'order-fixed-reply-lost',
      label: 'order, keys the shop honours: reply lost',
      faults: ['partition:shop:reply-lost'],
    },
    {
      name: 'order-fixed-reply-lost-operator',
      label: 'order, keys the shop honours: reply lost, operator shortens timeout',
      faults: ['partition:shop:reply-lost', 'activity-operation:options'],
    },
  ],
});
