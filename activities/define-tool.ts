// A tool of the user's own: a TypeScript function the worker runs as the `runTool` activity, with its key.
import { toJSONSchema } from 'zod/v4';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { ReceiverRefusedError, ReceiverUnavailableError } from '../common/receiver-errors';
import { effectFlags, TOOL_EFFECTS, type ToolEffect } from '../workflows/effects';
import type { ToolSpec } from '../workflows/tools';
import { DEFAULT_MAX_OUTPUT_BYTES, OUTPUT_OVERFLOWS, type OutputLimit, type OutputOverflow } from './tool-output';

export type { ToolEffect };

/** What a tool's `run` gets besides its arguments. */
export interface ToolContext {
  /**
   * The call's idempotency key: the same for every attempt of this call on any worker, after any
   * crash, and different for every other call. Pass it to the receiver.
   */
  key: string;
  /** The run's id (`AgentInput.runId`) and the call's id in the run. */
  runId: string;
  callId: string;
  /** Temporal's attempt of this activity, from 1. */
  attempt: number;
  /** Aborted when the activity is cancelled (its run was cancelled, or its timeout passed). */
  signal: AbortSignal;
  /**
   * What the run acts for, from its input (`AgentInput.context`): a customer, an account, a
   * repository. The model neither sees nor chooses it. `{}` when the run gives none.
   */
  context: Readonly<Record<string, unknown>>;
  /**
   * Marks a crash point of your own in this call, as `NAME TOOL CALL-ID` (say, `mail.accepted` once
   * the receiver has answered and before your code reads the answer): a crash sweep can kill the
   * worker there as at the loop's own points. Outside a sweep it does nothing.
   */
  point(name: string): Promise<void>;
  /**
   * Tells the run how long the receiver says it keeps keys (as an `Idempotency-Key-Retention`
   * header would). Tools of one `receiver` share it; once a key may have expired, a repeat is no
   * longer taken as harmless and a lookup gets `byKey: false`. Default: the run's `keyRetentionMs`.
   * A value that is not a positive number of ms is logged as a warning and left out: it never fails
   * the call, whose effect has usually happened by then.
   */
  keysKeptFor(ms: number): void;
}

/** What a tool's `lookup` gets. */
export interface ToolLookupQuery<A> {
  /** The key of the call whose outcome is unknown. */
  key: string;
  args: A;
  callId: string;
  runId: string;
  /**
   * Whether the receiver can be asked by the key: the tool is `keyed`, the run does not say its
   * receivers ignore keys (`AgentInput.keyless`), and the key has not expired. When `false`, find the
   * call by what it made (the key written into it, its content).
   */
  byKey: boolean;
  /** The run's context, as `run` gets it. */
  context: Readonly<Record<string, unknown>>;
  signal: AbortSignal;
}

/**
 * What a lookup answers: whether the call with this key happened, and what it returned if it did.
 * `commitDeadlineMs` with `happened: false`: no trace yet, but the receiver may still commit a request
 * this long after it arrived (a slow receiver); the ladder waits that long and asks again.
 */
export type ToolLookupAnswer =
  | boolean
  | {
      happened: boolean;
      output?: unknown;
      commitDeadlineMs?: number;
      /**
       * With `happened: false`: the receiver holds a record under the call's key (or its trace) that is
       * not this call's (other arguments): what it holds, for a person, who decides whether the call happened.
       */
      mismatch?: string;
    };

/** A schema with zod's `safeParse` (zod 3 or 4): it checks the model's arguments and gives the JSON Schema. */
interface ZodLike<A> {
  safeParse(value: unknown): { success: true; data: A } | { success: false; error: { message: string } };
}

/** A JSON Schema object, for a tool whose arguments are not described with zod. */
export type JsonSchemaObject = { type: 'object'; properties?: Record<string, unknown>; [k: string]: unknown };

/** What {@link defineTool} takes. */
export interface ToolDefinition<A> {
  /** The name the model calls it by: letters, digits, `_` and `-`, at most 64. */
  name: string;
  description: string;
  /** Its arguments: a zod object schema (checked before `run`), or a JSON Schema object (not checked). */
  parameters: ZodLike<A> | JsonSchemaObject;
  effect: ToolEffect;
  /**
   * The ladder's second rung: asks the receiver whether the call with `key` happened. Throw when
   * it cannot tell; then a person is asked. Without it, an unknown outcome of a `keyed` call whose key
   * has expired, or of an `unkeyed` one, goes to a person.
   */
  lookup?: (query: ToolLookupQuery<A>) => Promise<ToolLookupAnswer>;
  /**
   * The service the tool calls. Tools of one receiver share what it says of its keys
   * (`ctx.keysKeptFor`). Default the tool's own name.
   */
  receiver?: string;
  /**
   * Every call waits for a person's approval (by signal) before it runs, whatever a run's input says;
   * the activity refuses a call that comes without the approval of exactly its arguments. Default `false`.
   */
  needsApproval?: boolean;
  /**
   * Why a run's `context` must not reach this tool, or `null`: checked when the run's tools are listed,
   * so a refused context (a receiver the worker was not configured for, say) fails the run (`BadInput`)
   * before anything runs.
   */
  checkContext?: (context: Readonly<Record<string, unknown>>) => string | null;
  /** How long a call is sent again while `run` throws {@link ReceiverUnavailableError} with `notSent`; default: the run's. */
  receiverDownMs?: number;
  /**
   * The most of one output, in UTF-8 bytes, that the run keeps and the model is shown. Default 1 MiB
   * (`DEFAULT_MAX_OUTPUT_BYTES`). What happens past it is `overflow`'s to say.
   */
  maxOutputBytes?: number;
  /**
   * Past `maxOutputBytes`: `cut` (default) keeps the first `maxOutputBytes` and tells the model how much
   * was cut; `store` keeps the whole output in the payload store and shows the model all of it (on a
   * worker with no store it is cut, and the model told why).
   */
  overflow?: OutputOverflow;
  /**
   * Does the work. Its result goes to the model (a string as it is, anything else as JSON). Throw
   * {@link ReceiverRefusedError} when the receiver refused (nothing happened: the model hears why),
   * `new ReceiverUnavailableError(url, null, message, true)` when nothing was sent; any other error
   * leaves the outcome unknown, for the ladder to settle.
   */
  run: (args: A, ctx: ToolContext) => Promise<unknown>;
}

/** A tool made by {@link defineTool}: register it on a worker with `createAgentWorker({ tools: [...] })`. */
export interface DefinedTool<A = Record<string, unknown>> {
  readonly name: string;
  /** What the workflow learns of it (by the `listTools` activity, into history). */
  readonly spec: ToolSpec;
  /** The model's arguments checked against `parameters`: the value `run` gets, or why not. */
  parse(args: Record<string, unknown>): { args: A } | { refused: string };
  readonly definition: ToolDefinition<A>;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

function isZod(schema: unknown): schema is ZodLike<unknown> {
  return typeof (schema as { safeParse?: unknown }).safeParse === 'function';
}

/** The JSON Schema the model is shown: zod 4 schemas carry `_zod`, zod 3 ones `_def`. */
function jsonSchemaOf(name: string, schema: ZodLike<unknown> | JsonSchemaObject): Record<string, unknown> {
  let json: Record<string, unknown>;
  if (!isZod(schema)) json = schema;
  else if ('_zod' in schema) json = toJSONSchema(schema as never) as Record<string, unknown>;
  else json = zodToJsonSchema(schema as never, { $refStrategy: 'none' }) as Record<string, unknown>;
  const { $schema: _drop, ...rest } = json;
  if (rest.type !== 'object')
    throw new Error(`tool ${name}: its parameters must describe an object, not ${String(rest.type)}`);
  return rest;
}

/**
 * Defines a tool of your own, run by the worker as an activity. Its `effect` (and `lookup`) tell the
 * resolution ladder what to do when a call's outcome is unknown after a crash.
 *
 * ```ts
 * const sendEmail = defineTool({
 *   name: 'send_email', description: 'Send an email', effect: 'keyed',
 *   parameters: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
 *   lookup: ({ key }) => mail.sentWithKey(key),
 *   run: (args, { key }) => mail.send(args, { idempotencyKey: key }),
 * });
 * ```
 */
export function defineTool<A = Record<string, unknown>>(definition: ToolDefinition<A>): DefinedTool<A> {
  const { name, effect } = definition;
  if (!NAME.test(name)) throw new Error(`tool name ${JSON.stringify(name)}: use 1 to 64 letters, digits, _ or -`);
  if (!TOOL_EFFECTS.includes(effect))
    throw new Error(`tool ${name}: effect must be one of ${TOOL_EFFECTS.join(', ')}, not ${JSON.stringify(effect)}`);
  if (typeof definition.run !== 'function') throw new Error(`tool ${name}: run must be a function`);
  const max = definition.maxOutputBytes;
  if (max !== undefined && (!Number.isSafeInteger(max) || max < 1))
    throw new Error(`tool ${name}: maxOutputBytes must be a whole number of bytes, at least 1, not ${String(max)}`);
  if (definition.overflow !== undefined && !OUTPUT_OVERFLOWS.includes(definition.overflow))
    throw new Error(
      `tool ${name}: overflow must be one of ${OUTPUT_OVERFLOWS.join(', ')}, not ${JSON.stringify(definition.overflow)}`,
    );
  const spec: ToolSpec = {
    name,
    description: definition.description,
    parameters: jsonSchemaOf(name, definition.parameters),
    readOnly: effectFlags(effect).readOnly,
    idempotent: effectFlags(effect).idempotent,
    sendsKey: effectFlags(effect).keyed,
    lookup: typeof definition.lookup === 'function',
    needsApproval: definition.needsApproval === true,
    registered: true,
    ...(definition.receiver ? { receiver: definition.receiver } : {}),
    ...(definition.receiverDownMs ? { receiverDownMs: definition.receiverDownMs } : {}),
  };
  const schema = definition.parameters;
  return {
    name,
    spec,
    definition,
    parse(args) {
      if (!isZod(schema)) return { args: args as A };
      const checked = schema.safeParse(args);
      return checked.success
        ? { args: checked.data as A }
        : { refused: `the arguments do not fit the tool's schema: ${checked.error.message}` };
    },
  };
}

/** A defined tool of any arguments, as a worker registers it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each tool checks its own arguments (`parse`)
export type AnyTool = DefinedTool<any>;

/** The tools registered on one worker, by name; a name given twice is an error. */
export class ToolRegistry {
  private readonly tools = new Map<string, AnyTool>();

  constructor(tools: readonly AnyTool[] = []) {
    for (const tool of tools) {
      if (this.tools.has(tool.name)) throw new Error(`two tools registered as ${tool.name}`);
      this.tools.set(tool.name, tool);
    }
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The tool named `name`, or a refusal that lists the registered ones. */
  get(name: string): AnyTool {
    const tool = this.tools.get(name);
    if (!tool)
      throw new ReceiverRefusedError(
        `no tool named ${name} is registered on this worker (registered: ${this.names().join(', ') || 'none'})`,
        'UnknownTool',
      );
    return tool;
  }

  /** Why a run's context is refused by one of `names` (their `checkContext`), or `null`. */
  contextProblem(names: readonly string[], context: Readonly<Record<string, unknown>>): string | null {
    for (const name of names) {
      const problem = this.get(name).definition.checkContext?.(context);
      if (problem) return `${name}: ${problem}`;
    }
    return null;
  }

  /** How much of a tool's output the run keeps, and what happens past it. */
  outputLimit(name: string): OutputLimit {
    const { maxOutputBytes, overflow } = this.get(name).definition;
    return { maxOutputBytes: maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES, overflow: overflow ?? 'cut' };
  }

  /** Runs one call; its result as the model's text. */
  async run(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
    const tool = this.get(name);
    const parsed = tool.parse(args);
    if ('refused' in parsed) throw new ReceiverRefusedError(parsed.refused, 'InvalidArguments');
    return textOf(await tool.definition.run(parsed.args, ctx));
  }

  /** Asks the tool's lookup whether the call with `key` happened. */
  async lookup(
    name: string,
    args: Record<string, unknown>,
    query: Omit<ToolLookupQuery<unknown>, 'args'>,
  ): Promise<{ happened: boolean; output?: string; commitDeadlineMs?: number; mismatch?: string }> {
    const tool = this.get(name);
    if (!tool.definition.lookup) throw new ReceiverRefusedError(`tool ${name} has no lookup`, 'NoLookup');
    const parsed = tool.parse(args);
    const answer = await tool.definition.lookup({ ...query, args: 'args' in parsed ? parsed.args : args });
    const happened = typeof answer === 'boolean' ? answer : answer?.happened;
    if (typeof happened !== 'boolean')
      throw new Error(`the lookup of tool ${name} answered neither true nor false nor { happened }`);
    const output = typeof answer === 'object' && answer.output !== undefined ? textOf(answer.output) : undefined;
    if (happened) return { happened, ...(output !== undefined ? { output } : {}) };
    const mismatch = typeof answer === 'object' ? answer.mismatch : undefined;
    if (mismatch !== undefined) {
      if (typeof mismatch !== 'string' || mismatch === '')
        throw new Error(`the lookup of tool ${name} answered a mismatch that is not a text`);
      return { happened, mismatch };
    }
    const deadline = typeof answer === 'object' ? answer.commitDeadlineMs : undefined;
    if (deadline === undefined) return { happened };
    if (typeof deadline !== 'number' || !Number.isFinite(deadline) || deadline <= 0)
      throw new Error(`the lookup of tool ${name} answered a commitDeadlineMs that is not a positive number of ms`);
    return { happened, commitDeadlineMs: deadline };
  }
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

export { ReceiverRefusedError, ReceiverUnavailableError };
