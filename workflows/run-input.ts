// The checks of a run's input that the client and the workflow share: plain logic, no Temporal API.

/** Why a run's `context` cannot be given to its tools, or `null`: it must be a JSON object, or absent. */
export function contextProblem(context: unknown): string | null {
  if (context === undefined) return null;
  if (typeof context !== 'object' || context === null || Array.isArray(context))
    return `the run's context must be a JSON object, not ${Array.isArray(context) ? 'an array' : JSON.stringify(context)}`;
  return null;
}

/** Why a run that names no tools is refused: it names those registered on the worker, or MCP servers. */
export const NO_TOOLS =
  'the run names no tools: give it tools (registered on the worker with defineTool) or mcpServers (or both)';

/** Why a run's input names no tools, or `null`. */
export function toolsProblem(input: { tools?: unknown[]; mcpServers?: unknown[] }): string | null {
  return input.tools?.length || input.mcpServers?.length ? null : NO_TOOLS;
}
