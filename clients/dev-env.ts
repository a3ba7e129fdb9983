// The environment `npm run dev` gives its worker: its own Temporal and tracker, and the model the user chose.

/** The ports `npm run dev` serves on. */
export interface DevPorts {
  temporal: number;
  tracker: number;
  model: number;
}

/**
 * The worker's environment under `npm run dev`: the dev server's Temporal and tracker, and the
 * scripted model unless the user named a model of their own (`OPENAI_BASE_URL`, with `AGENT_MODEL`
 * and `OPENAI_API_KEY`), which is kept: the scripted model is a default, never a replacement.
 */
export function devWorkerEnv(given: NodeJS.ProcessEnv, ports: DevPorts): NodeJS.ProcessEnv {
  return {
    ...given,
    TEMPORAL_ADDRESS: `localhost:${ports.temporal}`,
    TRACKER_URL: `http://127.0.0.1:${ports.tracker}`,
    OPENAI_BASE_URL: given.OPENAI_BASE_URL || `http://127.0.0.1:${ports.model}/v1`,
  };
}
