// The trip's activities, as a user writes them: book a car, a hotel and a flight; cancel a booking.
import { ApplicationFailure } from '@temporalio/common';
import { activityKey } from '../../lib/activity';

/** The trip's activities, against the service at `serviceUrl`. */
export type TripActivities = ReturnType<typeof createActivities>;

/** Activities as a Temporal user writes them; `keys` sends the call's key (`keyedActivities`) with each request. */
export function createActivities(serviceUrl: string, options: { keys: boolean }) {
  const post = async (path: string, body: unknown): Promise<string> => {
    const res = await fetch(`${serviceUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(options.keys ? { 'Idempotency-Key': activityKey() } : {}) },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    // Declined is an answer, not an outage: no retry will change it.
    if (res.status === 402) throw ApplicationFailure.nonRetryable(text, 'Declined');
    if (!res.ok) throw new Error(`${res.status} ${text}`);
    return text;
  };
  return {
    bookCar: (trip: string) => post('/bookings', { kind: 'car', trip }),
    bookHotel: (trip: string) => post('/bookings', { kind: 'hotel', trip }),
    bookFlight: (trip: string) => post('/bookings', { kind: 'flight', trip }),
    cancel: async (booking: string): Promise<void> => {
      await post(`/bookings/${encodeURIComponent(booking)}/cancel`, {});
    },
  };
}
