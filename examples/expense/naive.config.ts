// The expense example as written: a retry of a call that succeeded is refused for good.
import { expenseSweep } from './sweep';

/** `npm run sweep -- --config examples/expense/naive.config.ts` */
export default expenseSweep(false);
