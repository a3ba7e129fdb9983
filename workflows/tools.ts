/**
 * What each tool of a run does, as the model sees it, and what the resolution ladder needs to know
 * about it. Pure data, shared by workflow code (which must stay deterministic) and activities.
 */

/** How a tool behaves when a call is repeated or its outcome is unknown. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments, as sent to the model. */
  parameters: Record<string, unknown>;
  /** Only reads: a repeat is harmless. */
  readOnly: boolean;
  /** Changes something, but doing it twice leaves the same state as once: a repeat is harmless. */
  idempotent: boolean;
  /** Sends the call's idempotency key to the receiver, which (if it honours keys) makes a repeat harmless. */
  sendsKey: boolean;
  /**
   * The receiver can be asked whether a call happened: by its key (`GET /idempotency/:key`) on a keyed
   * tracker, or by searching for the key the tool writes into what it creates on a keyless one.
   */
  lookup: boolean;
  /** Waits for a person's approval before it runs, whatever the run's settings say. */
  needsApproval: boolean;
  /** The MCP server (its name in the worker's configuration) that serves the tool. */
  server?: string;
  /** A TypeScript tool registered on the worker (`defineTool`), run by the `runTool` activity itself. */
  registered?: boolean;
  /** A registered tool's receiver: tools of one receiver share what it says of its keys. Default the tool's name. */
  receiver?: string;
  /** The server's tool that answers whether a call of this one happened (the lookup rung over MCP). */
  lookupTool?: string;
  /**
   * Arguments of an MCP tool that the run fills in from its `context` (those named as a key of it when
   * the tools were listed); the model neither sees nor sets them.
   */
  contextArgs?: string[];
  /** Listed by a run older than `contextArgs`: the tool's `repo` argument came from the run's `repo`. */
  takesRepo?: boolean;
  /**
   * How long a call is sent again while its server refuses connections (the MCP server's
   * `receiverDownMs`); unset: the run's.
   */
  receiverDownMs?: number;
}

/** What the loop tells the model when the run gives no `instructions`. */
export const DEFAULT_INSTRUCTIONS =
  'You are an agent that acts through the tools you are given. Use them to do the task, ' +
  'then reply with a short summary of what you did.';

/** The spec of `name` among `specs`, or `undefined` for a tool they do not have. */
export function toolSpec(name: string, specs: readonly ToolSpec[]): ToolSpec | undefined {
  return specs.find((t) => t.name === name);
}

/** The tools in the OpenAI `tools` request format: what a model sees of each (a run's specs, or the tracker's). */
export function toolsForModel(
  specs: ReadonlyArray<Pick<ToolSpec, 'name' | 'description' | 'parameters'>>,
): Array<{ type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }> {
  return specs.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}
