/** Where the tracker is and how to reach it, from the environment, with the default `npm run dev` uses. */
export function trackerFromEnv(env: NodeJS.ProcessEnv = process.env) {
  return {
    /** `TRACKER_URL`, default `http://127.0.0.1:4100`. */
    trackerUrl: env.TRACKER_URL ?? 'http://127.0.0.1:4100',
    /** `TRACKER_TOKEN`: the tracker's bearer token, if it requires one. Default none. */
    trackerToken: env.TRACKER_TOKEN || undefined,
  };
}

/**
 * The tokens a tracker requires: `token` (its `--token`), else `TRACKER_TOKEN`, then `TRACKER_TOKENS`
 * (more, comma-separated), each an account whose keys no other can use or read. None: no token.
 */
export function trackerTokensFromEnv(env: NodeJS.ProcessEnv = process.env, token?: string): string[] {
  const more = (env.TRACKER_TOKENS ?? '').split(',').map((t) => t.trim());
  return [token ?? env.TRACKER_TOKEN, ...more].filter((t): t is string => Boolean(t));
}
