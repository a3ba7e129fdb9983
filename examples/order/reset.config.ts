// The fixed order example, reset by a person at each point: to its last workflow task, and to its
// first. Its keys come from the workflow id and each activity's id, which a reset keeps: the shop
// answers every repeat from its records.
import { defineSweep } from '../../sweep';
import { orderSweep } from './sweep';

/** `npm run sweep -- --config examples/order/reset.config.ts` */
export default defineSweep({
  ...orderSweep(true),
  name: 'order-fixed-reset',
  rows: [
    { name: 'order-fixed-reset-last', label: 'order, keys the shop honours: reset to last', reset: 'last-task' },
    { name: 'order-fixed-reset-first', label: 'order, keys the shop honours: reset to first', reset: 'first-task' },
  ],
});
