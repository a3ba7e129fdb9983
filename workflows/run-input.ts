// The checks of a run's input that the client and the workflow share: plain logic, no Temporal API.

/** Why a run's `context` cannot be given to its tools, or `null`: it must be a JSON object, or absent. */
export function contextProblem(context: unknown): string | null {
  if (context === undefined) return null;
  if (typeof context !== 'object' || context === null || Array.isArray(context))
    return `the run's context must be a JSON object, not ${Array.isArray(context) ? 'an array' : JSON.stringify(context)}`;
  return null;
}

/**
 * Why a run's `task` and `instructions` cannot start a conversation, or `null`: each is a text (the
 * instructions may be left out). Anything else would go to the model as a message's content, and an
 * object there could pass for a stored-payload reference.
 */
export function textsProblem(input: { task?: unknown; instructions?: unknown }): string | null {
  if (typeof input.task !== 'string')
    return `the run's task must be a text, not ${input.task === null ? 'null' : Array.isArray(input.task) ? 'an array' : typeof input.task}`;
  if (input.instructions !== undefined && typeof input.instructions !== 'string')
    return `the run's instructions must be a text, not ${input.instructions === null ? 'null' : typeof input.instructions}`;
  return null;
}

/** Why a run that names no tools is refused: it names those registered on the worker, or MCP servers. */
export const NO_TOOLS =
  'the run names no tools: give it tools (registered on the worker with defineTool) or mcpServers (or both)';

/** Why a run's input names no tools, or `null`. */
export function toolsProblem(input: { tools?: unknown[]; mcpServers?: unknown[] }): string | null {
  return input.tools?.length || input.mcpServers?.length ? null : NO_TOOLS;
}

/**
 * Why a run's `carried` state cannot be trusted, or `null`. Only the run itself writes it, when it
 * continues as new, so a run that was not continued from another (`continuedFrom` unset), or one a
 * cron schedule starts again with the input it was first given, must not hold it: a starter could
 * otherwise hand a run decisions nobody made, tools without their approval, or another run's stored
 * conversation. A retried or reset run of a chain keeps the run it continued from, and its input.
 */
export function carriedProblem(
  carried: unknown,
  run: { continuedFromExecutionRunId?: string; cronSchedule?: string },
): string | null {
  if (carried === undefined) return null;
  if (!run.continuedFromExecutionRunId)
    return 'the input holds carried, the state only a run continuing as new hands to the next, but this run was started, not continued';
  if (run.cronSchedule)
    return 'the input holds carried, which a run on a cron schedule cannot have been handed by its own chain';
  return null;
}
