// The environment `npm run dev` gives its worker: its own Temporal and tracker, the model the user chose,
// and its payload store.
import { existsSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

/** The folder `npm run dev` keeps its state in: `DEV_DIR`, else `.dev/` at the repository's root. */
export function devDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.DEV_DIR ?? path.join(ROOT, '.dev'));
}

/**
 * The payload store a client reads: `AGENT_PAYLOAD_DIR`, else the one `npm run dev` keeps (`.dev/payloads`)
 * when it exists, so that `npm run status` in another shell reads what the dev worker stored.
 */
export function clientPayloadDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.AGENT_PAYLOAD_DIR) return env.AGENT_PAYLOAD_DIR;
  const dev = path.join(devDir(env), 'payloads');
  return existsSync(dev) ? dev : undefined;
}

/** The ports `npm run dev` serves on. */
export interface DevPorts {
  temporal: number;
  tracker: number;
  model: number;
}

/**
 * The worker's environment under `npm run dev`: the dev server's Temporal and tracker, and the
 * scripted model unless the user named a model of their own (`OPENAI_BASE_URL`, with `AGENT_MODEL`
 * and `OPENAI_API_KEY`), which is kept: the scripted model is a default, never a replacement; and a
 * payload store in the dev folder (`AGENT_PAYLOAD_DIR`, unless set).
 */
export function devWorkerEnv(given: NodeJS.ProcessEnv, ports: DevPorts, dir = devDir(given)): NodeJS.ProcessEnv {
  return {
    ...given,
    // Large tool outputs and the conversation's turns, out of history: the local store under the dev folder.
    AGENT_PAYLOAD_DIR: given.AGENT_PAYLOAD_DIR || path.join(dir, 'payloads'),
    TEMPORAL_ADDRESS: `localhost:${ports.temporal}`,
    TRACKER_URL: `http://127.0.0.1:${ports.tracker}`,
    OPENAI_BASE_URL: given.OPENAI_BASE_URL || `http://127.0.0.1:${ports.model}/v1`,
  };
}
