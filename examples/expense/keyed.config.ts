// The expense example with a key on every call, which the service honours.
import { expenseSweep } from './sweep';

/** `npm run sweep -- --config examples/expense/keyed.config.ts` */
export default expenseSweep(true);
