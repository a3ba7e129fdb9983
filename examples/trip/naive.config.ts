// The trip saga as written: a booking retried after a kill books twice.
import { tripSweep } from './sweep';

/** `npm run sweep -- --config examples/trip/naive.config.ts` */
export default tripSweep(false);
