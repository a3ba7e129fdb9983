// A small expense service that records what it was asked to do; it refuses a transition it has made already.
import { startStandIn } from '../stand-in';

/** A running expense service, with its records. */
export interface ExpenseService {
  url: string;
  /** An expense's effects: each kind beyond one is a duplicate; no payment is a missing one. */
  damage(id: string): { dups: number; missing: number };
  close(): Promise<void>;
}

/**
 * The expense example's outside world, as such services are written: `POST /expenses` creates an
 * expense and refuses one that exists; `POST /expenses/:id/pay` moves it from CREATED to COMPLETED and
 * refuses any other transition (`400 Invalid status transition COMPLETED -> COMPLETED`). A retry of a
 * call that succeeded is refused for good, so a workflow that retries it for ever never finishes.
 * With `honourKeys`, a request whose `Idempotency-Key` it has seen gets the first answer again.
 */
export async function startExpenseService(options: { honourKeys: boolean }): Promise<ExpenseService> {
  const status = new Map<string, 'CREATED' | 'COMPLETED'>();
  const effects: Array<{ kind: 'created' | 'paid'; id: string }> = [];
  const standIn = await startStandIn(options, ({ method, path, body }) => {
    const pay = /^\/expenses\/([^/]+)\/pay$/.exec(path);
    if (method === 'POST' && path === '/expenses') {
      const { id } = body;
      if (typeof id !== 'string' || id === '') return { code: 400, text: 'an expense needs an id' };
      if (status.has(id)) return { code: 400, text: `expense ${id} already exists` };
      status.set(id, 'CREATED');
      effects.push({ kind: 'created', id });
      return { code: 201, text: JSON.stringify({ id, status: 'CREATED' }) };
    }
    if (method === 'POST' && pay) {
      const id = decodeURIComponent(pay[1]);
      const now = status.get(id);
      if (now !== 'CREATED') return { code: 400, text: `Invalid status transition ${now ?? 'NONE'} -> COMPLETED` };
      status.set(id, 'COMPLETED');
      effects.push({ kind: 'paid', id });
      return { code: 200, text: JSON.stringify({ id, status: 'COMPLETED' }) };
    }
    return { code: 404, text: 'not found' };
  });
  return {
    ...standIn,
    damage(id) {
      const count = (kind: 'created' | 'paid') => effects.filter((e) => e.id === id && e.kind === kind).length;
      return {
        dups: Math.max(0, count('created') - 1) + Math.max(0, count('paid') - 1),
        missing: count('paid') === 0 ? 1 : 0,
      };
    },
  };
}
