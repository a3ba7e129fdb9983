/** Where the tracker is and how to reach it, from the environment, with the default `npm run dev` uses. */
export function trackerFromEnv(env: NodeJS.ProcessEnv = process.env) {
  return {
    /** `TRACKER_URL`, default `http://127.0.0.1:4100`. */
    trackerUrl: env.TRACKER_URL ?? 'http://127.0.0.1:4100',
    /** `TRACKER_TOKEN`: the tracker's bearer token, if it requires one. Default none. */
    trackerToken: env.TRACKER_TOKEN || undefined,
  };
}
