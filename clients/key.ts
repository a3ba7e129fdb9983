// `npm run key -- RUN CALL`: the idempotency key of one call.
import { key } from '../common/key';
import { clientKeySecret } from './dev-env';

/**
 * `npm run key -- RUN CALL`: prints the idempotency key of one call of one run, derived under the
 * worker's secret when this shell has it (`AGENT_KEY_SECRET`, or the one `npm run dev` keeps).
 */
function main(): void {
  const args = process.argv.slice(2);
  if (args.length !== 2) {
    throw new Error('usage: npm run key -- RUN CALL');
  }
  console.log(key(args[0], args[1], clientKeySecret()));
}

try {
  main();
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
