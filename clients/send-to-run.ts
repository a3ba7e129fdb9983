// A person's decision or answer, sent to a run: by Update when a worker is there to say at once whether it was taken, else by signal.
import { WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { SignalDefinition, UpdateDefinition } from '@temporalio/common';
import { pendingQuery } from '../workflows/signals';
import type { PendingState } from '../workflows/types';

/** How long a worker has to answer before the decision or answer goes by signal instead. */
export const WORKER_WAIT_MS = 5_000;
/** How long an Update a live worker got may take before the client sends the signal instead. */
const UPDATE_WAIT_MS = 30_000;

/**
 * How a decision or an answer goes: `auto` by Update when a worker answers within
 * {@link WORKER_WAIT_MS}, else by signal; `update` always by Update (waiting for a worker if none is
 * alive); `signal` always by signal. A script whose output must not depend on timing (a sweep's person)
 * names `update` or `signal`: `auto` chooses by whether a worker answered in time.
 */
export type Via = 'auto' | 'update' | 'signal';

/** How it went: the run took it (by Update, its answer with it), or it was sent by signal, and why. */
export type Sent<T> = { via: 'update'; taken: T } | { via: 'signal'; why: string };

/** One line on how it went, for a command's output. */
export function describeSent(sent: Sent<{ taken: string }>): string {
  return sent.via === 'update' ? `taken by the run (${sent.taken.taken})` : `sent by signal: ${sent.why}`;
}

/** Thrown when the run refused a decision or an answer sent by Update: nothing changed, and no event is in its history. */
export class RefusedError extends Error {
  constructor(
    /** The run's reason, as its validator gave it. */
    readonly reason: string,
  ) {
    super(`refused: ${reason}; nothing changed`);
    this.name = 'RefusedError';
  }
}

/**
 * Sends `value` by the Update, so the sender learns at once whether the run took it (a refusal throws
 * {@link RefusedError}, and leaves no event in the run's history). The run's workers are asked first
 * (the `pending` query, within {@link WORKER_WAIT_MS}): with none answering, an Update would wait for
 * one, so it goes by the signal, which the server keeps until a worker is back. A run started before
 * the Updates (no handler) gets the signal too. `via` names one way instead ({@link Via}).
 */
export async function sendToRun<T, A>(
  client: Client,
  handle: WorkflowHandle,
  update: UpdateDefinition<T, [A]>,
  signal: SignalDefinition<[A]>,
  value: A,
  via: Via = 'auto',
): Promise<Sent<T>> {
  const bySignal = async (why: string): Promise<Sent<T>> => {
    await handle.signal(signal, value);
    return { via: 'signal', why };
  };
  if (via === 'signal') return bySignal('as asked');
  if (via === 'auto' && (await pendingFromWorker(client, handle)) === null)
    return bySignal(`no worker answered within ${WORKER_WAIT_MS / 1000} s; the run takes it when one is back`);
  try {
    const execute = () => handle.executeUpdate<T, [A]>(update, { args: [value] });
    const taken = await (via === 'update' ? execute() : client.withDeadline(Date.now() + UPDATE_WAIT_MS, execute));
    return { via: 'update', taken };
  } catch (err) {
    if (!(err instanceof WorkflowUpdateFailedError)) {
      // The worker died after it answered: the Update may still reach the run, and the signal then finds it decided.
      if (via === 'auto' && isDeadline(err))
        return bySignal(`the worker took no Update within ${UPDATE_WAIT_MS / 1000} s`);
      throw err;
    }
    const reason = err.cause?.message ?? err.message;
    if (via === 'auto' && /^No registered handler for update/.test(reason))
      return bySignal('the run started before decisions and answers by Update');
    throw new RefusedError(reason);
  }
}

/** The run's `pending` query as a worker answers it within {@link WORKER_WAIT_MS}, or `null` if none does. */
export async function pendingFromWorker(client: Client, handle: WorkflowHandle): Promise<PendingState | null> {
  return client.withDeadline(Date.now() + WORKER_WAIT_MS, () => handle.query(pendingQuery)).catch(() => null);
}

/** Whether an error is the client's deadline running out (gRPC's DEADLINE_EXCEEDED, or the SDK's Update timeout). */
function isDeadline(err: unknown): boolean {
  const e = err as { name?: string; code?: number; cause?: { code?: number } };
  return e.name === 'WorkflowUpdateRPCTimeoutOrCancelledError' || e.code === 4 || e.cause?.code === 4;
}
