// A small shop server that records what it was asked to do, and honours keys when told to.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/** What the shop was asked to do, in the order it did it. */
export interface ShopRecord {
  kind: 'charge' | 'reservation' | 'mail';
  order: string;
  at: number;
}

/** How the shop runs. */
export interface ShopOptions {
  /** Answer a request whose `Idempotency-Key` it has seen with its first answer, doing nothing. */
  honourKeys: boolean;
  /** Its port. Default: a free one. */
  port?: number;
  /**
   * Where it keeps its records and its answers by key, one line per effect (written before it answers),
   * so a shop killed and started again on the same folder remembers both. Default: in memory only.
   */
  dataDir?: string;
}

/** One line of the shop's file: an effect, and the answer it gave (by key, when it honours keys). */
interface Line extends ShopRecord {
  key?: string;
  answer: string;
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
export async function startShop(options: ShopOptions): Promise<Shop> {
  const file = options.dataDir ? path.join(options.dataDir, 'shop.jsonl') : undefined;
  const lines: Line[] =
    file && existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => JSON.parse(l) as Line)
      : [];
  const records: ShopRecord[] = lines.map(({ kind, order, at }) => ({ kind, order, at }));
  const answers = new Map(lines.flatMap((l) => (l.key !== undefined ? [[l.key, l.answer] as const] : [])));
  let next = records.length + 1;
  const damage = (order: string) => damageOf(records, order);
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://shop');
      if (req.method === 'GET' && url.pathname === '/damage') {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(damage(url.searchParams.get('order') ?? '')));
        return;
      }
      const kind = KINDS[url.pathname as keyof typeof KINDS];
      if (req.method !== 'POST' || !kind) {
        res.writeHead(404).end();
        return;
      }
      const input = await body(req);
      const header = req.headers['idempotency-key'];
      const key = options.honourKeys && typeof header === 'string' ? header : undefined;
      let answer = key !== undefined ? answers.get(key) : undefined;
      if (answer === undefined) {
        const record: ShopRecord = { kind, order: String(input.order), at: Date.now() };
        answer = JSON.stringify({ id: `${kind}-${next++}`, order: input.order });
        // On disk before the answer: what the shop did, and what it said, outlive it.
        if (file) appendFileSync(file, `${JSON.stringify({ ...record, key, answer })}\n`);
        records.push(record);
        if (key !== undefined) answers.set(key, answer);
      }
      res.writeHead(201, { 'content-type': 'application/json' }).end(answer);
    })().catch(() => res.writeHead(400).end());
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    records,
    damage,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** An order's effects: how many of each kind it got beyond one, and which kinds it never got. */
function damageOf(records: readonly ShopRecord[], order: string): { dups: number; missing: number } {
  let dups = 0;
  let missing = 0;
  for (const kind of Object.values(KINDS)) {
    const n = records.filter((r) => r.order === order && r.kind === kind).length;
    dups += Math.max(0, n - 1);
    if (n === 0) missing += 1;
  }
  return { dups, missing };
}
