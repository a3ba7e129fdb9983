// How a key made in workflow code (`keyedActivities`) travels to its activity: at the end of the activity id.

/** Between a call's name and its key in the activity id: `charge#1.1 key 5d41402abc4b2a76b9719d911017c592`. */
export const KEY_SEPARATOR = ' key ';

/** The key an activity id carries, or `null` for an id that carries none (an activity not scheduled by `keyedActivities`). */
export function keyFromActivityId(activityId: string): string | null {
  const at = activityId.lastIndexOf(KEY_SEPARATOR);
  if (at < 0) return null;
  const key = activityId.slice(at + KEY_SEPARATOR.length);
  return /^[0-9a-f]{32}$/.test(key) ? key : null;
}
