// A small travel service that books and cancels, records what it did, and declines every flight.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running travel service, with its records. */
export interface TravelService {
  url: string;
  /**
   * A failed trip's damage: each car or hotel booked beyond one is a duplicate; each booking left
   * standing (not cancelled) is a compensation that is missing.
   */
  damage(trip: string): { dups: number; missing: number };
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/**
 * The trip example's outside world: `POST /bookings {kind, trip}` books a car or a hotel (201, its id)
 * and declines every flight (`402 the airline declined`); `POST /bookings/:id/cancel` cancels a booking
 * (cancelling one again is no error). With `honourKeys`, a request whose `Idempotency-Key` it has seen
 * gets the first answer again.
 */
export async function startTravelService(options: { honourKeys: boolean }): Promise<TravelService> {
  const bookings = new Map<string, { kind: string; trip: string; cancelled: boolean }>();
  const answers = new Map<string, { code: number; text: string }>();
  const act = async (req: IncomingMessage): Promise<{ code: number; text: string }> => {
    const cancel = /^\/bookings\/([^/]+)\/cancel$/.exec(req.url ?? '');
    if (req.method === 'POST' && req.url === '/bookings') {
      const { kind, trip } = await body(req);
      if (kind === 'flight') return { code: 402, text: 'the airline declined' };
      if ((kind !== 'car' && kind !== 'hotel') || typeof trip !== 'string') return { code: 400, text: 'bad booking' };
      // Named after the trip (the sweep's points name a request by its path, the workflow id written
      // {workflowId}): the first car of a trip is car-<trip>-1 in every run.
      const id = `${kind}-${trip}-${[...bookings.values()].filter((b) => b.trip === trip && b.kind === kind).length + 1}`;
      bookings.set(id, { kind, trip, cancelled: false });
      return { code: 201, text: id };
    }
    if (req.method === 'POST' && cancel) {
      const booking = bookings.get(cancel[1]);
      if (!booking) return { code: 404, text: `no booking ${cancel[1]}` };
      booking.cancelled = true;
      return { code: 200, text: 'cancelled' };
    }
    return { code: 404, text: 'not found' };
  };
  const server: Server = createServer((req, res) => {
    const key = req.headers['idempotency-key'];
    const keyed = options.honourKeys && typeof key === 'string' ? `${req.url} ${key}` : undefined;
    const seen = keyed ? answers.get(keyed) : undefined;
    (seen ? Promise.resolve(seen) : act(req))
      .then((answer) => {
        if (keyed && !seen) answers.set(keyed, answer);
        res.writeHead(answer.code, { 'content-type': 'text/plain' }).end(answer.text);
      })
      .catch((err: Error) => res.writeHead(400).end(err.message));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    damage(trip) {
      const mine = [...bookings.values()].filter((b) => b.trip === trip);
      let dups = 0;
      for (const kind of ['car', 'hotel']) dups += Math.max(0, mine.filter((b) => b.kind === kind).length - 1);
      return { dups, missing: mine.filter((b) => !b.cancelled).length };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
