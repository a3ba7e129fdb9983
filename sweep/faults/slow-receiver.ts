// A receiver slower than the caller's timeout: it holds a run's first write before it commits.
import type { Fault } from './fault';

/** How slow, and what the row's checks must tolerate. */
export interface SlowReceiverOptions {
  /** The activity types that call it: they time out in a live worker while a write is held. */
  activities: readonly string[];
  /** Its row shows damage with no kill at all (a receiver that does not claim a key in flight). Default `false`. */
  damagedWithoutKills?: boolean;
  /** Its row is swept in the first pass only (a restart waits out the hold, too long for a second pass's batch). Default `false`. */
  firstPassOnly?: boolean;
  /**
   * A receiver a suite declares (a config's `receivers`), by name: the engine holds each run's first
   * write to it (`hosts/declared-receivers.ts`). Default none: the suite's own receiver is slow (the
   * agent's slow trackers), or the user's, and the fault only says what the checks tolerate.
   */
  receiver?: string;
}

/** A slow receiver, as a fault: `receiver` names a declared one the engine holds. */
export interface SlowReceiverFault extends Fault {
  readonly kind: 'slow-receiver';
  readonly receiver?: string;
}

/**
 * A receiver slower than its callers' timeouts (the suite's slow trackers hold a run's first write with
 * {@link SlowCommits}): the call times out in a live worker while the write is held, and its retry or
 * lookup meets a write in flight.
 */
export function slowReceiver(options: SlowReceiverOptions): SlowReceiverFault {
  return {
    name: `slow-receiver:${options.receiver ?? options.activities.join(',')}`,
    kind: 'slow-receiver',
    target: 'receiver',
    summary: `the receiver${options.receiver ? ` ${options.receiver}` : ''} holds each run's first write past the timeout of ${options.activities.join(', ')}`,
    tolerates: {
      retries: true,
      slowActivities: options.activities,
      ...(options.damagedWithoutKills ? { damagedWithoutKills: true } : {}),
    },
    ...(options.firstPassOnly ? { firstPassOnly: true } : {}),
    ...(options.receiver ? { receiver: options.receiver } : {}),
  };
}

/** The declared receiver a row's slow-receiver fault names, if any. */
export function slowReceiverOf(row: { faults?: readonly Fault[] }): string | undefined {
  return row.faults?.find((f): f is SlowReceiverFault => f.kind === 'slow-receiver' && 'receiver' in f)?.receiver;
}

/**
 * A receiver slower than its callers' timeouts, scripted for the crash sweep: the first mutation in a
 * repo (a run's first write) is held before it commits until the tracker has answered another request
 * of that repo: the caller gave up and came back (a retry, or a lookup). What ends the hold is that
 * request, never a clock, so a run does the same thing however late its caller comes back, on a busy
 * machine too.
 *
 * `capMs` only keeps a caller that never comes back from holding the write for ever. A hold that ends
 * there is remembered ({@link ranOut}): its outcome hung on the time, and the sweep counts such a run
 * as an error, not a result.
 */
export class SlowCommits {
  private readonly seen = new Set<string>();
  private readonly held = new Map<string, Set<() => void>>();
  private readonly timedOut = new Set<string>();

  constructor(private readonly capMs: number) {}

  beforeCommit(repo: string): Promise<void> {
    if (this.seen.has(repo)) return Promise.resolve();
    this.seen.add(repo);
    return new Promise((resolve) => {
      const waiting = this.held.get(repo) ?? new Set<() => void>();
      this.held.set(repo, waiting);
      const release = () => {
        clearTimeout(timer);
        waiting.delete(release);
        resolve();
      };
      const timer = setTimeout(() => {
        this.timedOut.add(repo);
        release();
      }, this.capMs);
      waiting.add(release);
    });
  }

  answered(repo: string): void {
    for (const release of [...(this.held.get(repo) ?? [])]) release();
  }

  /** Whether a hold of `repo` ended at the cap, with no request of the caller to end it. */
  ranOut(repo: string): boolean {
    return this.timedOut.has(repo);
  }
}
