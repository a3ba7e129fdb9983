// A small travel service that books and cancels, records what it did, and declines every flight.
import { startStandIn } from '../stand-in';

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

/**
 * The trip example's outside world: `POST /bookings {kind, trip}` books a car or a hotel (201, its id)
 * and declines every flight (`402 the airline declined`); `POST /bookings/:id/cancel` cancels a booking
 * (cancelling one again is no error). With `honourKeys`, a request whose `Idempotency-Key` it has seen
 * gets the first answer again.
 */
export async function startTravelService(options: { honourKeys: boolean }): Promise<TravelService> {
  const bookings = new Map<string, { kind: string; trip: string; cancelled: boolean }>();
  const standIn = await startStandIn(options, ({ method, path, body }) => {
    const cancel = /^\/bookings\/([^/]+)\/cancel$/.exec(path);
    if (method === 'POST' && path === '/bookings') {
      const { kind, trip } = body;
      if (kind === 'flight') return { code: 402, text: 'the airline declined' };
      if ((kind !== 'car' && kind !== 'hotel') || typeof trip !== 'string') return { code: 400, text: 'bad booking' };
      // Named after the trip (the sweep's points name a request by its path, the workflow id written
      // {workflowId}): the first car of a trip is car-<trip>-1 in every run.
      const n = [...bookings.values()].filter((b) => b.trip === trip && b.kind === kind).length + 1;
      const id = `${kind}-${trip}-${n}`;
      bookings.set(id, { kind, trip, cancelled: false });
      return { code: 201, text: id };
    }
    if (method === 'POST' && cancel) {
      const booking = bookings.get(cancel[1]);
      if (!booking) return { code: 404, text: `no booking ${cancel[1]}` };
      booking.cancelled = true;
      return { code: 200, text: 'cancelled' };
    }
    return { code: 404, text: 'not found' };
  });
  return {
    ...standIn,
    damage(trip) {
      const mine = [...bookings.values()].filter((b) => b.trip === trip);
      let dups = 0;
      for (const kind of ['car', 'hotel']) dups += Math.max(0, mine.filter((b) => b.kind === kind).length - 1);
      return { dups, missing: mine.filter((b) => !b.cancelled).length };
    },
  };
}
