// The trip saga with a key on every call, which the service honours.
import { tripSweep } from './sweep';

/** `npm run sweep -- --config examples/trip/keyed.config.ts` */
export default tripSweep(true);
