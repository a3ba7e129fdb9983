// A tracker on an in-memory database for tests.
import type { AddressInfo } from 'node:net';
import { buildTracker, type TrackerOptions } from '../../tracker/app';
import { Store } from '../../tracker/store';

/** A tracker on an in-memory database, listening on a free loopback port. */
export async function listeningTracker(options: Omit<TrackerOptions, 'store'> = {}) {
  const store = new Store(':memory:');
  const app = buildTracker({ store, ...options });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    store,
    app,
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    async close() {
      await app.close();
      store.close();
    },
  };
}
