/** The task queue the agent's workers serve, unless `TASK_QUEUE` says otherwise. */
export const DEFAULT_TASK_QUEUE = 'crash-safe-agent';

/** Where each part of the system is found, from the environment, with the defaults `npm run dev` uses. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env) {
  return {
    /** `TEMPORAL_ADDRESS`, default `localhost:7233`. */
    temporalAddress: env.TEMPORAL_ADDRESS ?? 'localhost:7233',
    /** `TEMPORAL_NAMESPACE`, default `default`. */
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
    /** `TASK_QUEUE`, default `crash-safe-agent`. */
    taskQueue: env.TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
    /** `TRACKER_URL`, default `http://127.0.0.1:4100`. */
    trackerUrl: env.TRACKER_URL ?? 'http://127.0.0.1:4100',
    /** `TRACKER_TOKEN`: the tracker's bearer token, if it requires one. Default none. */
    trackerToken: env.TRACKER_TOKEN || undefined,
    /** `OPENAI_BASE_URL`, default the scripted model server at `http://127.0.0.1:4200/v1`. */
    openaiBaseUrl: env.OPENAI_BASE_URL ?? 'http://127.0.0.1:4200/v1',
    /** `OPENAI_API_KEY`; the scripted server needs none, so the default is a placeholder. */
    openaiApiKey: env.OPENAI_API_KEY ?? 'scripted-model-needs-no-key',
    /** `AGENT_MODEL`, default `triage-script`. */
    model: env.AGENT_MODEL ?? 'triage-script',
    /** `MCP_CONFIG`: a JSON file of MCP servers (`{"mcpServers": {...}}`) whose tools runs may use. Default none. */
    mcpConfig: env.MCP_CONFIG || undefined,
  };
}
