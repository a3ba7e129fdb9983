// Keeps the worker's secrets out of every activity result and error (and so out of history).
import { redactDeep, redactError } from '../common/secrets';
import { cappedError } from './errors';

type ActivityFn = (...args: never[]) => Promise<unknown>;

/**
 * The activities with every registered secret (`common/secrets.ts`) taken out of what they hand to
 * Temporal: their results and their errors, which the server stores in history and shows in the Web UI.
 * An error's message is cut to 64 KiB too (`cappedError`), so no receiver's error text fails the run.
 */
export function redactingActivities<T extends Record<string, ActivityFn>>(activities: T): T {
  const wrapped: Record<string, ActivityFn> = {};
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = async (...args: never[]) => {
      try {
        return redactDeep(await fn(...args));
      } catch (err) {
        throw cappedError(redactError(err));
      }
    };
  }
  return wrapped as T;
}
