// The expense's activities, as a user writes them: one request each, an error for any answer but success.
import { activityKey } from '../../lib/activity';

/** The expense's activities, against the service at `serviceUrl`. */
export type ExpenseActivities = ReturnType<typeof createActivities>;

/** Activities as a Temporal user writes them; `keys` sends the call's key (`keyedActivities`) with each request. */
export function createActivities(serviceUrl: string, options: { keys: boolean }) {
  const post = async (path: string, body: unknown): Promise<void> => {
    const res = await fetch(`${serviceUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(options.keys ? { 'Idempotency-Key': activityKey() } : {}) },
      body: JSON.stringify(body),
    });
    // A refusal is an error, which Temporal retries (by default, for ever).
    if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  };
  return {
    async createExpense(id: string, amount: number): Promise<void> {
      await post('/expenses', { id, amount });
    },
    async payment(id: string): Promise<void> {
      await post(`/expenses/${encodeURIComponent(id)}/pay`, {});
    },
  };
}
