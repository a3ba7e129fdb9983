// The order's activities: charge, reserve and mail, as a user would write them (fetch and node:http).
import { request } from 'node:http';
import { activityKey } from '../../lib/activity';

/** The order's activities, against the shop at `shopUrl`. */
export type ShopActivities = ReturnType<typeof createActivities>;

/**
 * The key of this activity's call, which `keyedActivities` in the workflow made: the same for every
 * attempt of it, different for every other call. The naive version sends none.
 */
function keyHeader(keys: boolean): Record<string, string> {
  return keys ? { 'Idempotency-Key': activityKey() } : {};
}

async function post(url: string, keys: boolean, body: unknown): Promise<{ id: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...keyHeader(keys) },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return (await res.json()) as { id: string };
}

/** The same request with `node:http`, as older mail code would send it. */
function postWithHttp(url: string, keys: boolean, body: unknown): Promise<{ id: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', ...keyHeader(keys) } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c));
        res.on('end', () =>
          res.statusCode === 201
            ? resolve(JSON.parse(text) as { id: string })
            : reject(new Error(`${url}: ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Activities as a Temporal user writes them; `keys` adds an idempotency key to every request. */
export function createActivities(shopUrl: string, options: { keys: boolean }) {
  const { keys } = options;
  return {
    async charge(order: string, amount: number): Promise<string> {
      return (await post(`${shopUrl}/charges`, keys, { order, amount })).id;
    },
    async reserve(order: string, items: string[]): Promise<string> {
      return (await post(`${shopUrl}/reservations`, keys, { order, items })).id;
    },
    async sendConfirmation(order: string, email: string, payment: string): Promise<string> {
      return (await postWithHttp(`${shopUrl}/mails`, keys, { order, email, payment })).id;
    },
  };
}
