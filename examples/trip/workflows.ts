// A trip booked as a saga, as a Temporal user would write it: car, hotel, flight; when a step fails,
// the steps done are undone in reverse order and the trip fails. And the same with a key on every call.
import { ActivityFailure, ApplicationFailure, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import { keyedActivities } from '../../lib/workflow';
import type { TripActivities } from './activities';

// Production values; a declined booking is not retried.
const activityOptions: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  retry: { nonRetryableErrorTypes: ['Declined'] },
};

/** Books the trip, or undoes what it booked and fails. */
export async function tripWorkflow(trip: string): Promise<string> {
  return bookTrip(trip, proxyActivities<TripActivities>(activityOptions));
}

/** The same saga with a key on every call (made from the trip and the call's place), which the service honours. */
export async function keyedTripWorkflow(trip: string): Promise<string> {
  const service = keyedActivities<TripActivities>({
    ...activityOptions,
    owner: trip,
    calls: {
      bookCar: { effect: 'keyed' },
      bookHotel: { effect: 'keyed' },
      bookFlight: { effect: 'keyed' },
      cancel: { effect: 'keyed' },
    },
  });
  return bookTrip(trip, service);
}

async function bookTrip(trip: string, { bookCar, bookHotel, bookFlight, cancel }: TripActivities): Promise<string> {
  const undo: string[] = [];
  try {
    undo.unshift(await bookCar(trip));
    undo.unshift(await bookHotel(trip));
    await bookFlight(trip);
    return 'booked';
  } catch (err) {
    for (const booking of undo) await cancel(booking);
    const why = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
    // The saga fails by design: the trip is not booked, and what was booked is cancelled.
    throw ApplicationFailure.nonRetryable(
      `trip not booked (${why}); cancelled ${undo.length} booking(s)`,
      'TripFailed',
    );
  }
}
