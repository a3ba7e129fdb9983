// Keeps the worker's secrets out of every activity result and error (and so out of history).
import { redactDeep, redactError } from '../common/secrets';

type ActivityFn = (...args: never[]) => Promise<unknown>;

/**
 * The activities with every registered secret (`common/secrets.ts`) taken out of what they hand to
 * Temporal: their results and their errors, which the server stores in history and shows in the Web UI.
 */
export function redactingActivities<T extends Record<string, ActivityFn>>(activities: T): T {
  const wrapped: Record<string, ActivityFn> = {};
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = async (...args: never[]) => {
      try {
        return redactDeep(await fn(...args));
      } catch (err) {
        throw redactError(err);
      }
    };
  }
  return wrapped as T;
}
