import { orderSweep } from './sweep';

/** `npm run sweep -- --config examples/order/naive.config.ts` */
export default orderSweep(false);
