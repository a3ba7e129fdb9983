// The order example with keys the shop honours: never a duplicate, killed once or twice.
import { orderSweep } from './sweep';

/** `npm run sweep -- --config examples/order/fixed.config.ts` */
export default orderSweep(true);
