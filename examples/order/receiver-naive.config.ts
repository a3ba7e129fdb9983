// The order example as written, against its shop hosted by the sweep: the shop dies after it acts, is
// slower than the timeout, or its reply is lost, and the retry acts again. Controls: each must show its damage.
import { defineSweep } from '../../sweep';
import { orderSweepOnHostedShop } from './sweep';

/** `npm run sweep -- --config examples/order/receiver-naive.config.ts` */
export default defineSweep({
  ...orderSweepOnHostedShop(false),
  name: 'order-naive-receiver',
  rows: [
    { name: 'order-naive-shop-dies', label: 'order, naive: shop dies', faults: ['receiver-dies:shop'], control: true },
    { name: 'order-naive-shop-slow', label: 'order, naive: shop slow', faults: ['slow-receiver:shop'], control: true },
    {
      name: 'order-naive-reply-lost',
      label: 'order, naive: reply lost',
      faults: ['partition:shop:reply-lost'],
      control: true,
    },
  ],
});
