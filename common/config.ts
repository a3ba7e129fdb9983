/** The task queue the agent's workers serve, unless `TASK_QUEUE` says otherwise. */
export const DEFAULT_TASK_QUEUE = 'crash-safe-agent';

/** What a worker or a client of the agent loop reads from the environment. */
export type AgentConfig = ReturnType<typeof configFromEnv>;

/**
 * Where the loop's parts are found (Temporal, the model, MCP servers), from the environment, with the
 * defaults `npm run dev` uses. Your tools' own receivers are yours to configure.
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env) {
  return {
    /** `TEMPORAL_ADDRESS`, default `localhost:7233`. */
    temporalAddress: env.TEMPORAL_ADDRESS ?? 'localhost:7233',
    /** `TEMPORAL_NAMESPACE`, default `default`. */
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
    /** `TASK_QUEUE`, default `crash-safe-agent`. */
    taskQueue: env.TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
    /** `OPENAI_BASE_URL`, default the scripted model server at `http://127.0.0.1:4200/v1`. */
    openaiBaseUrl: env.OPENAI_BASE_URL ?? 'http://127.0.0.1:4200/v1',
    /** `OPENAI_API_KEY`; the scripted server needs none, so the default is a placeholder. */
    openaiApiKey: env.OPENAI_API_KEY ?? 'scripted-model-needs-no-key',
    /** `AGENT_MODEL`, default `triage-script` (the scripted model server's). */
    model: env.AGENT_MODEL ?? 'triage-script',
    /** `MCP_CONFIG`: a JSON file of MCP servers (`{"mcpServers": {...}}`) whose tools runs may use. Default none. */
    mcpConfig: env.MCP_CONFIG || undefined,
  };
}
