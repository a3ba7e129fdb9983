// The fixed order example against its shop hosted by the sweep: the shop dies after it acts, before
// its reply; or it is slower than the activities' timeout. Its keys are on disk: no repeat acts twice.
import { defineSweep } from '../../sweep';
import { orderSweepOnHostedShop } from './sweep';

/** `npm run sweep -- --config examples/order/receiver.config.ts` */
export default defineSweep({
  ...orderSweepOnHostedShop(true),
  name: 'order-fixed-receiver',
  rows: [
    { name: 'order-fixed-shop-dies', label: 'order, keys the shop honours: shop dies', faults: ['receiver-dies:shop'] },
    { name: 'order-fixed-shop-slow', label: 'order, keys the shop honours: shop slow', faults: ['slow-receiver:shop'] },
  ],
});
