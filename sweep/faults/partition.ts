// The network between a caller and a receiver loses a run's first write, or its reply, with no process dying.
import type { Fault } from './fault';
import type { Lost } from '../hosts/partition-proxy';

export type { Lost } from '../hosts/partition-proxy';

/** Which part is lost, and what the row's checks must tolerate. */
export interface PartitionOptions {
  lost: Lost;
  /** The activity types that call the receiver: they time out in a live worker while the partition lasts. */
  activities: readonly string[];
  /** Its row shows damage with no kill at all (a loop that repeats a write without a key). Default `false`. */
  damagedWithoutKills?: boolean;
}

/** A partition, as a fault: the suite that owns the receiver reads `lost` and puts a proxy in front of it. */
export interface PartitionFault extends Fault {
  readonly kind: 'partition';
  readonly lost: Lost;
}

/**
 * A network partition in front of a receiver (`hosts/partition-proxy.ts`): each run's first write is
 * lost on its way there (`request`: nothing happens) or its reply on the way back (`reply`: it
 * happened), and the caller cannot tell which. The call times out in a live worker; the partition
 * heals when the run comes back (a retry, a lookup), never by a clock. First pass only: every run
 * waits out a tool timeout at its first write, too long for the second pass's batches.
 */
export function partition(options: PartitionOptions): PartitionFault {
  return {
    name: `partition:${options.lost}-lost`,
    kind: 'partition',
    target: 'receiver',
    summary:
      options.lost === 'request'
        ? "the network loses each run's first write on its way to the receiver (nothing happens) until the run comes back"
        : "the receiver acts on each run's first write and the network loses its reply until the run comes back",
    tolerates: {
      retries: true,
      slowActivities: options.activities,
      ...(options.damagedWithoutKills ? { damagedWithoutKills: true } : {}),
    },
    firstPassOnly: true,
    lost: options.lost,
  };
}

/** What the partition a row names loses, if the row names one. */
export function partitionOf(row: { faults?: readonly Fault[] }): Lost | undefined {
  return row.faults?.find((f): f is PartitionFault => f.kind === 'partition' && 'lost' in f)?.lost;
}
