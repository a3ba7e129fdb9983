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
  /**
   * A receiver a suite declares (a config's `receivers`), by name: the engine's proxy in front of it is
   * the partition (`hosts/receiver-proxy.ts`). Default none: the agent's suite puts one in front of its tracker.
   */
  receiver?: string;
}

/** A partition, as a fault: whoever hosts the receiver reads `lost` and puts a proxy in front of it. */
export interface PartitionFault extends Fault {
  readonly kind: 'partition';
  readonly lost: Lost;
  readonly receiver?: string;
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
    name: `partition:${options.receiver ? `${options.receiver}:` : ''}${options.lost}-lost`,
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
    ...(options.receiver ? { receiver: options.receiver } : {}),
  };
}

/** What the partition a row names loses, if the row names one in front of the agent's tracker. */
export function partitionOf(row: { faults?: readonly Fault[] }): Lost | undefined {
  const found = row.faults?.find((f): f is PartitionFault => f.kind === 'partition' && 'lost' in f);
  return found && !found.receiver ? found.lost : undefined;
}

/** The declared receiver a row's partition stands in front of, and what it loses, if the row names one. */
export function declaredPartitionOf(row: { faults?: readonly Fault[] }): { receiver: string; lost: Lost } | undefined {
  const found = row.faults?.find((f): f is PartitionFault => f.kind === 'partition' && 'lost' in f);
  return found?.receiver ? { receiver: found.receiver, lost: found.lost } : undefined;
}
