// The order example as written: the shop acts on every request, so a kill after it acted duplicates.
import { orderSweep } from './sweep';

/**
 * `npm run sweep -- --config examples/order/naive.config.ts`. A control: it is known to duplicate, so
 * a sweep of it that shows no damage fails (it could not see any).
 */
export default { ...orderSweep(false), control: true };
