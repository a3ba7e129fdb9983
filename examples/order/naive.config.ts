// The order example as written: the shop acts on every request, so a kill after it acted duplicates.
import { orderSweep } from './sweep';

/** `npm run sweep -- --config examples/order/naive.config.ts` */
export default orderSweep(false);
