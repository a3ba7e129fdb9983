/** The task queue the agent's workers serve, unless `TASK_QUEUE` says otherwise. */
export const DEFAULT_TASK_QUEUE = 'crash-safe-agent';

/** What a worker or a client of the agent loop reads from the environment. */
export type AgentConfig = ReturnType<typeof configFromEnv>;

/**
 * Where the loop's parts are found (Temporal, the model, MCP servers), from the environment, with the
 * defaults `npm run dev` uses. Your tools' own receivers are yours to configure.
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env) {
  const problems = envProblems(env);
  if (problems.length > 0) throw new EnvError(problems);
  const temporal = temporalFromEnv(env);
  return {
    /** `TEMPORAL_ADDRESS`, default `localhost:7233`. */
    temporalAddress: temporal.address,
    /** `TEMPORAL_NAMESPACE`, default `default`. */
    namespace: temporal.namespace,
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

/**
 * Where Temporal is, from the environment: `TEMPORAL_ADDRESS` (default `localhost:7233`) and
 * `TEMPORAL_NAMESPACE` (default `default`), the one reader of both for every process here (the loop's
 * workers and clients, and the sweep's worker processes). One that is set and cannot be used is refused.
 */
export function temporalFromEnv(env: NodeJS.ProcessEnv = process.env): { address: string; namespace: string } {
  const problems = envProblems(env).filter((p) => p.startsWith('TEMPORAL_'));
  if (problems.length > 0) throw new EnvError(problems);
  return { address: env.TEMPORAL_ADDRESS ?? 'localhost:7233', namespace: env.TEMPORAL_NAMESPACE ?? 'default' };
}

/** Thrown for an environment variable the loop reads and cannot use: each one named, with what it needs. */
export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'EnvError';
  }
}

/**
 * Why a variable `configFromEnv` reads cannot be used, one line each. A variable that is set is read
 * as it is: one that is empty, or not of its form, is named, never replaced by the default (unset it
 * for that).
 */
export function envProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  const given = (name: string, form: string, ok: (v: string) => boolean) => {
    const value = env[name];
    if (value === undefined) return;
    if (value.trim() === '') problems.push(`${name} is set but empty: give ${form}, or unset it for the default`);
    else if (!ok(value)) problems.push(`${name} is ${JSON.stringify(value)}, not ${form}`);
  };
  given('TEMPORAL_ADDRESS', 'HOST:PORT', (v) => /^[^\s:/]+:\d{1,5}$/.test(v) || /^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(v));
  given('TEMPORAL_NAMESPACE', 'a namespace name', (v) => !/\s/.test(v));
  given('TASK_QUEUE', 'a task queue name', (v) => v.trim() === v);
  given('OPENAI_BASE_URL', 'an http(s) URL', (v) => {
    try {
      return ['http:', 'https:'].includes(new URL(v).protocol);
    } catch {
      return false;
    }
  });
  given('AGENT_MODEL', 'a model name', (v) => v.trim() === v);
  given('MCP_CONFIG', 'the path of a JSON file of MCP servers', () => true);
  return problems;
}
