// A small shop server that records what it was asked to do, and honours keys when told to.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the shop was asked to do, in the order it did it. */
export interface ShopRecord {
  kind: 'charge' | 'reservation' | 'mail';
  order: string;
  at: number;
}

/** A running shop, with its records. */
export interface Shop {
  url: string;
  records: ShopRecord[];
  /** Each order's effects: how many of each kind it got beyond one, and which kinds it never got. */
  damage(order: string): { dups: number; missing: number };
  close(): Promise<void>;
}

const KINDS = { '/charges': 'charge', '/reservations': 'reservation', '/mails': 'mail' } as const;

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/**
 * The order example's outside world: a payment service, a stock service and a mail service in one
 * small HTTP server, which records every effect it makes and outlives every worker the sweep kills.
 * With `honourKeys`, a request whose `Idempotency-Key` it has seen gets the first answer again and
 * does nothing; without, every request acts.
 */
export async function startShop(options: { honourKeys: boolean }): Promise<Shop> {
  const records: ShopRecord[] = [];
  const answers = new Map<string, string>();
  let next = 1;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const kind = KINDS[req.url as keyof typeof KINDS];
      if (req.method !== 'POST' || !kind) {
        res.writeHead(404).end();
        return;
      }
      const input = await body(req);
      const key = req.headers['idempotency-key'];
      const seen = options.honourKeys && typeof key === 'string' ? answers.get(key) : undefined;
      let answer = seen;
      if (answer === undefined) {
        records.push({ kind, order: String(input.order), at: Date.now() });
        answer = JSON.stringify({ id: `${kind}-${next++}`, order: input.order });
        if (options.honourKeys && typeof key === 'string') answers.set(key, answer);
      }
      res.writeHead(201, { 'content-type': 'application/json' }).end(answer);
    })().catch(() => res.writeHead(400).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    records,
    damage(order) {
      let dups = 0;
      let missing = 0;
      for (const kind of Object.values(KINDS)) {
        const n = records.filter((r) => r.order === order && r.kind === kind).length;
        dups += Math.max(0, n - 1);
        if (n === 0) missing += 1;
      }
      return { dups, missing };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
