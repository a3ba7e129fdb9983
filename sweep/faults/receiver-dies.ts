// A receiver's process dies mid-request and comes back on its port: a tracker, an MCP server.
import type { Fault } from './fault';

/** Which receiver dies, and where in a request. */
export type ReceiverDeath =
  /** The tracker, at a point of its own: `received` (nothing written) or `committed` (no reply yet). */
  | { receiver: 'tracker'; at: 'received' | 'committed' }
  /** The MCP server, once per write, after the tracker behind it accepted it. */
  | { receiver: 'mcp' };

/** A receiver's death, as a fault: the suite that owns the receiver reads `death`. */
export interface ReceiverDiesFault extends Fault {
  readonly kind: 'receiver-dies';
  readonly death: ReceiverDeath;
}

/**
 * A receiver's process is SIGKILLed once per write and started again on the same port (and database
 * file), by the suite that owns the receiver (`hosts/receiver-host.ts` hosts it): the call in flight
 * never gets an answer, and the ladder settles it. A clean run retries.
 */
export function receiverDies(death: ReceiverDeath): ReceiverDiesFault {
  const name = death.receiver === 'tracker' ? `receiver-dies:tracker-${death.at}` : 'receiver-dies:mcp';
  return {
    name,
    kind: 'receiver-dies',
    target: 'receiver',
    summary:
      death.receiver === 'tracker'
        ? `the tracker process is SIGKILLed once per write, ${death.at === 'received' ? 'on receipt (nothing written)' : 'after it commits (no reply yet)'}, and restarted`
        : 'the MCP server process is SIGKILLed once per write, after the tracker accepted it, and restarted',
    tolerates: { retries: true },
    death,
  };
}

/** The receiver death a row names, if any. */
export function receiverDeathOf(row: { faults?: readonly Fault[] }): ReceiverDeath | undefined {
  const found = row.faults?.find((f): f is ReceiverDiesFault => f.kind === 'receiver-dies' && 'death' in f);
  return found?.death;
}
