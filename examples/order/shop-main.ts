// The shop as a process of its own, as the sweep hosts a receiver a config declares: on PORT, its records under DATA_DIR.
import { startShop } from './shop';

/**
 * `PORT`: where it listens (127.0.0.1); `DATA_DIR`: where it keeps its records and its answers by key,
 * so that, killed and started again there, it remembers both; `HONOUR_KEYS=1`: it honours keys.
 */
async function main(): Promise<void> {
  const port = Number(process.env.PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`PORT is ${JSON.stringify(process.env.PORT)}, not a port`);
  const dataDir = process.env.DATA_DIR;
  if (!dataDir) throw new Error('DATA_DIR is not set: where the shop keeps its records');
  const shop = await startShop({ honourKeys: process.env.HONOUR_KEYS === '1', port, dataDir });
  console.log(`shop listening on ${shop.url}`);
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
