// Activities as the `execute` of an AI SDK agent's tools, in a workflow: each call keyed by the model's
// tool-call id, its unknown outcome settled on the resolution ladder.
import { keyedCaller, type KeyedActivitiesOptions } from './keyed-activities';

/** What the AI SDK passes a tool's `execute` as its second argument; only the id is read. */
export interface ToolCallOptions {
  toolCallId: string;
}

/** Each activity as a tool's `execute`: its one input, and the AI SDK's tool-call options beside it. */
export type ToolActivities<A> = {
  [K in keyof A]: A[K] extends (input: infer I) => Promise<infer R>
    ? (input: I, call: ToolCallOptions) => Promise<R>
    : never;
};

/**
 * Activities made to be the `execute` of the tools an AI SDK agent calls inside a workflow (with
 * Temporal's AI SDK plugin: `generateText({ model: temporalProvider.languageModel(...), tools })`).
 * Each call carries an idempotency key made from `owner` and the **model's tool-call id**, which is
 * in history with the model's reply, so every attempt and every worker after a crash sends the same
 * key; an unknown outcome is settled on the ladder as `keyedActivities` settles it (repeated when
 * harmless, looked up, or put to a person, whose answer comes by the `resolve` signal). The activity
 * gets the tool's input alone: the tool-call options (the whole conversation) are not sent.
 *
 * A tool-call id this run has seen before (a provider that numbers calls per reply) gets the count of
 * its uses appended (`call_1~2`), so two calls never share a key. A model call that is retried after a
 * crash before its reply reached history may return new ids: no tool ran for the lost reply, so no
 * key is lost with it.
 *
 * ```ts
 * const { sendEmail } = toolActivities<typeof activities>({
 *   owner: workflowInfo().workflowId, startToCloseTimeout: '1 minute',
 *   calls: { sendEmail: { effect: 'keyed' } },
 * });
 * await generateText({ model, tools: { sendEmail: tool({ description, inputSchema, execute: sendEmail }) } });
 * ```
 */
export function toolActivities<A extends object>(options: KeyedActivitiesOptions<A>): ToolActivities<A> {
  const call = keyedCaller(options, 'toolActivities');
  const uses = new Map<string, number>();
  return new Proxy({} as ToolActivities<A>, {
    // Not `then`: the object must not look like a promise to `await`.
    get: (_target, name) => {
      if (typeof name !== 'string' || name === 'then') return undefined;
      return (input: unknown, options?: ToolCallOptions) => {
        const id = options?.toolCallId;
        if (typeof id !== 'string' || id.length === 0)
          throw new TypeError(
            `toolActivities: ${name} needs the model's tool-call id: give it to an AI SDK tool as its execute (the SDK passes { toolCallId } as the second argument)`,
          );
        const n = (uses.get(id) ?? 0) + 1;
        uses.set(id, n);
        return call(name, [input], n === 1 ? id : `${id}~${n}`);
      };
    },
  });
}
