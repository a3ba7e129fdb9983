// A receiver's process dies mid-request and comes back on its port: a tracker, an MCP server.
import type { Fault } from './fault';

/** Which receiver dies, and where in a request. */
export type ReceiverDeath =
  /** The tracker, at a point of its own: `received` (nothing written) or `committed` (no reply yet). */
  | { receiver: 'tracker'; at: 'received' | 'committed' }
  /** The MCP server, once per write, after the tracker behind it accepted it. */
  | { receiver: 'mcp' }
  /**
   * A receiver a suite declares (a config's `receivers`), by its name, carried out by the engine
   * (`hosts/declared-receivers.ts`): once per write of a run, after the receiver acted, before its reply.
   */
  | { receiver: 'declared'; name: string };

/** A receiver's death, as a fault: the suite that owns the receiver reads `death`. */
export interface ReceiverDiesFault extends Fault {
  readonly kind: 'receiver-dies';
  readonly death: ReceiverDeath;
}

/**
 * A receiver's process is SIGKILLed once per write and started again on the same port (and database
 * file): the call in flight never gets an answer, and the ladder settles it. A clean run retries.
 * The agent's trackers and MCP servers die by their suite (`hosts/receiver-host.ts` hosts them); a
 * declared receiver dies by the engine, which strikes clean runs too: a caller without keys repeats
 * the write the receiver made, and every scenario counts that damage.
 */
export function receiverDies(death: ReceiverDeath): ReceiverDiesFault {
  return {
    name: `receiver-dies:${death.receiver === 'tracker' ? `tracker-${death.at}` : death.receiver === 'mcp' ? 'mcp' : death.name}`,
    kind: 'receiver-dies',
    target: 'receiver',
    summary: summaryOf(death),
    tolerates: death.receiver === 'declared' ? { retries: true, damagedWithoutKills: true } : { retries: true },
    death,
  };
}

function summaryOf(death: ReceiverDeath): string {
  switch (death.receiver) {
    case 'tracker':
      return `the tracker process is SIGKILLed once per write, ${death.at === 'received' ? 'on receipt (nothing written)' : 'after it commits (no reply yet)'}, and restarted`;
    case 'mcp':
      return 'the MCP server process is SIGKILLed once per write, after the tracker accepted it, and restarted';
    case 'declared':
      return `the receiver ${death.name} is SIGKILLed once per write of a run, after it acted and before its reply, and restarted`;
  }
}

/** The receiver death a row names, if any. */
export function receiverDeathOf(row: { faults?: readonly Fault[] }): ReceiverDeath | undefined {
  const found = row.faults?.find((f): f is ReceiverDiesFault => f.kind === 'receiver-dies' && 'death' in f);
  return found?.death;
}
