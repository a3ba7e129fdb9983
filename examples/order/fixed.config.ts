import { orderSweep } from './sweep';

/** `npm run sweep -- --config examples/order/fixed.config.ts` */
export default orderSweep(true);
