// Keys and the resolution ladder for any workflow's activities, not only the agent's tool calls.
import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  sleep,
  upsertMemo,
  type ActivityFunction,
  type ActivityOptions,
} from '@temporalio/workflow';
import { KEY_SEPARATOR } from '../common/activity-key';
import { key as callKey } from '../common/key';
import { DAY_MS, DEFAULT_RECEIVER_DOWN_MS } from './calls';
import { effectFlags, type ToolEffect } from './effects';
import { settleCall, type Answer, type Lookup } from './ladder';
import { attemptTool, inlineText } from './outcome';
import { approvalGate } from './approvals';
import { callDigest } from './digest';
import { personQuestions } from './questions';
import { WAITING_MEMO } from './signals';

/** How one activity's calls are settled when their outcome is unknown. */
export interface KeyedCallOptions {
  /** What a repeat does (`keyed`: the activity sends `activityKey()` to a receiver that honours it). */
  effect: ToolEffect;
  /**
   * A person approves each call before it runs, by the `approve` signal (`approveCall` and `denyCall` in
   * `crash-safe-agent/client`), bound to the digest of the activity's name and arguments; the call waits
   * in the run's memo (`waitingFor`). A denied call throws `CallDenied` (an AI SDK tool's `execute`:
   * the model is told). Default `false`.
   */
  needsApproval?: boolean;
  /**
   * The name of an activity that answers whether a call happened (the ladder's second rung). It gets
   * `{ key, callId, args }` and returns `true`, `false` or `{ happened, output }`; it throws when it
   * cannot tell. Without it, an unknown outcome that a repeat cannot settle goes to a person.
   */
  lookup?: string;
}

/** Options of {@link keyedActivities}: activity options for every call, and what each activity does. */
export interface KeyedActivitiesOptions<A> extends Omit<ActivityOptions, 'activityId'> {
  /**
   * An id the workflow owns, fresh for each piece of work and never reused (an order id, the agent's
   * `runId`): every call's key is made from it and the call's place. Not Temporal's run id, which a
   * reset or continue-as-new changes, nor a workflow id that can be reused.
   */
  owner: string;
  /** What each activity does; an activity not named counts as `unkeyed`. */
  calls: { [K in keyof A]?: KeyedCallOptions };
  /** How long the receivers keep a key. Default 24 hours. */
  keyRetentionMs?: number;
  /** How long a call is sent again while its receiver refuses connections (nothing was sent). Default 3 minutes. */
  receiverDownMs?: number;
}

type Activities<A> = { [K in keyof A]: A[K] extends ActivityFunction ? A[K] : never };

/**
 * Activities whose every call carries an idempotency key, the same for each attempt and each worker
 * and unique to the call, and whose unknown outcomes are settled on the resolution ladder: repeated
 * when that is harmless, looked up when the activity has a `lookup`, else put to a person, whose
 * answer arrives by the `resolve` signal (`answerQuestion` in `crash-safe-agent/client`).
 *
 * The key is made from `owner` and the call's place (`charge#1` for the first call of `charge`), and
 * reaches the activity in its activity id: read it there with `activityKey()` from
 * `crash-safe-agent/worker`. Call this once per workflow run (it installs the `resolve` handler); a
 * workflow that continues as new passes a new `owner` to the next run.
 *
 * ```ts
 * const shop = keyedActivities<typeof activities>({
 *   owner: order.id, startToCloseTimeout: '10s',
 *   calls: { charge: { effect: 'keyed' }, sendMail: { effect: 'unkeyed', lookup: 'mailSent' } },
 * });
 * await shop.charge(order.id, order.amount);
 * ```
 */
export function keyedActivities<A extends object>(options: KeyedActivitiesOptions<A>): Activities<A> {
  const counts = new Map<string, number>();
  const call = keyedCaller(options, 'keyedActivities');
  return new Proxy({} as Activities<A>, {
    // Not `then`: the object must not look like a promise to `await`.
    get: (_target, name) =>
      typeof name === 'string' && name !== 'then'
        ? (...args: unknown[]) => {
            const n = (counts.get(name) ?? 0) + 1;
            counts.set(name, n);
            return call(name, args, `${name}#${n}`);
          }
        : undefined,
  });
}

/**
 * Calls an activity by name with its arguments under a call id the caller chose (unique in the run):
 * its key is `callKey(owner, callId)`, and an unknown outcome climbs the ladder. `keyedActivities`
 * names each call by its place; `toolActivities` by the model's tool-call id.
 */
export function keyedCaller<A extends object>(
  options: KeyedActivitiesOptions<A>,
  who: string,
): (name: string, args: unknown[], callId: string) => Promise<unknown> {
  const { owner, calls, keyRetentionMs, receiverDownMs, ...activityOptions } = options;
  if (typeof owner !== 'string' || owner.length === 0) throw new TypeError(`${who} needs an owner id`);
  // What the run waits for, in its memo (the same shape as the agent's): made at the first call that
  // needs a person, so a workflow that never does installs no handler and records no patch.
  let questions: ReturnType<typeof personQuestions> | undefined;
  let gate: ReturnType<typeof approvalGate> | undefined;
  const publish = () =>
    upsertMemo({ [WAITING_MEMO]: { approvals: gate?.open() ?? [], questions: questions?.open() ?? [] } });
  const person = () => (questions ??= personQuestions(publish));
  const approvals = () => (gate ??= approvalGate(publish));
  const proxy = (name: string, { once, withinMs }: { once: boolean; withinMs?: number }, activityId: string) => {
    const retry = once ? { ...activityOptions.retry, maximumAttempts: 1 } : activityOptions.retry;
    const bound = withinMs === undefined ? {} : { scheduleToCloseTimeout: Math.max(1, Math.floor(withinMs)) };
    return proxyActivities<Record<string, ActivityFunction>>({ ...activityOptions, retry, ...bound, activityId })[name];
  };

  return async (name: string, args: unknown[], callId: string): Promise<unknown> => {
    const key = callKey(owner, callId);
    const spec = calls[name as keyof A] ?? { effect: 'unkeyed' };
    if (spec.needsApproval) {
      // The person approves exactly this call: the decision must name its digest, if it names one.
      const decision = await approvals().request({ callId, tool: name, args, digest: callDigest(name, args) });
      if (!decision.approved)
        throw ApplicationFailure.nonRetryable(
          `${name} (${callId}) was denied by ${decision.by}${decision.reason ? `: ${decision.reason}` : ''}`,
          'CallDenied',
        );
    }
    let tries = 0;
    let lastFailure: unknown;
    // A value the ladder settled without one (a lookup or a person said "it happened" and no more).
    let unknownValue = false;
    const settled = await settleCall(
      {
        ...effectFlags(spec.effect),
        retentionMs: keyRetentionMs ?? DAY_MS,
        canLookup: spec.lookup !== undefined,
        receiverDownMs: receiverDownMs ?? DEFAULT_RECEIVER_DOWN_MS,
      },
      {
        now: () => Date.now(),
        sleep: (ms) => sleep(ms),
        attempt: async (repeat) => {
          tries += 1;
          // Each try its own activity id (one id may not be open twice); the key after the separator stays.
          const activityId = `${callId}.${tries}${KEY_SEPARATOR}${key}`;
          const run = proxy(name, { once: !repeat.harmless, withinMs: repeat.withinMs }, activityId);
          const outcome = await attemptTool(async () => {
            try {
              return { output: JSON.stringify((await run(...args)) ?? null), attempt: 1, replayed: false };
            } catch (err) {
              lastFailure = err;
              throw err;
            }
          });
          if (outcome.kind === 'ok') lastFailure = undefined;
          return outcome;
        },
        lookup: async (): Promise<Lookup> => {
          try {
            const found = (await proxy(
              spec.lookup!,
              { once: false },
              `${callId}.lookup${KEY_SEPARATOR}${key}`,
            )({
              key,
              callId,
              args,
            })) as boolean | { happened: boolean; output?: unknown };
            const happened = typeof found === 'boolean' ? found : found.happened;
            if (!happened) return { kind: 'not-happened' };
            const output = typeof found === 'object' ? found.output : undefined;
            unknownValue = output === undefined;
            return { kind: 'happened', ...(output !== undefined ? { output: JSON.stringify(output) } : {}) };
          } catch (err) {
            if (!(err instanceof ActivityFailure)) throw err;
            return { kind: 'cannot-tell', reason: err.cause?.message ?? err.message };
          }
        },
        ask: async (reason): Promise<Answer> => {
          const answer = await person().ask({ callId, tool: name, args, reason: `${reason}; key ${key}` });
          unknownValue = answer.happened && answer.result === undefined;
          return answer;
        },
      },
    );
    const output = inlineText(settled.output);
    if (settled.status === 'failed') throw lastFailure ?? new Error(output);
    if (unknownValue) return undefined;
    if (settled.rung === 'person') return parseOrText(output);
    return JSON.parse(output) as unknown;
  };
}

/** A person's result: JSON if it parses, else the text as it is. */
function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
