// Each tool call's path: its identity, its arguments checked, its approval, its run and the ladder.
import { ActivityFailure, patched, sleep, workflowInfo } from '@temporalio/workflow';
import type { AgentActivityProxies } from './agent-activities';
import type { approvalGate } from './approvals';
import { callDigest } from './digest';
import { settleCall, type Lookup } from './ladder';
import { attemptTool } from './outcome';
import type { personQuestions } from './questions';
import { toolSpec, type ToolSpec } from './tools';
import type { AgentInput, CallRecord, RunExecution, ToolCall, ToolOutput } from './types';

/** How long a receiver keeps a key unless the run or the receiver says otherwise. */
export const DAY_MS = 86_400_000;
/** How long a call goes on being sent to a receiver that refuses connections, unless the run or the tool says. */
export const DEFAULT_RECEIVER_DOWN_MS = 180_000;
/**
 * The patch after which a call whose receiver refused the connection is sent again for
 * `receiverDownMs`; a run started before it tells the model at once, as it did then.
 */
export const RECEIVER_DOWN_PATCH = 'receiver-down-sent-again';

/**
 * Gives every tool call of a run an identity of its own, for its key, its approval and its questions.
 * Providers do not promise unique call ids: a reply may reuse an earlier id, or send none. The
 * provider's id is kept when it is new to the run; otherwise the call is named by its place (turn and
 * position), so it never acts under another call's key or approval.
 */
export function callIdentities(carried: readonly string[] = []) {
  const used = new Set<string>(carried);
  const identify = (call: ToolCall, turn: number, position: number): string => {
    let id = call.id && !used.has(call.id) ? call.id : `${call.id || 'call'}@${turn}.${position}`;
    while (used.has(id)) id += "'";
    used.add(id);
    return id;
  };
  /** Every identity given so far, for the next run of a chain. */
  identify.used = () => [...used];
  return identify;
}

/**
 * A call's arguments, or why it must not run: arguments that are not a JSON object, or that may have
 * been cut off because the model stopped at its length limit, are never replaced by defaults.
 */
export function parseArguments(
  call: ToolCall,
  spec: ToolSpec,
  finishReason: string | null,
): { args: Record<string, unknown> } | { refused: string } {
  if (finishReason === 'length') {
    return {
      refused: 'the reply was cut off at the length limit, so these arguments may be incomplete; the call was not run',
    };
  }
  const text = call.function.arguments;
  // Some providers send no text for a call without arguments; that is only safe for a tool that takes none.
  const takesNone = Object.keys((spec.parameters.properties as object | undefined) ?? {}).length === 0;
  if ((text ?? '').trim() === '' && takesNone) return { args: {} };
  let args: unknown;
  try {
    args = JSON.parse(text);
  } catch (err) {
    return { refused: `the arguments are not valid JSON (${(err as Error).message}); the call was not run` };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return { refused: 'the arguments must be a JSON object; the call was not run' };
  return { args: args as Record<string, unknown> };
}

/** What a call runner needs from its run. */
export interface CallRunnerDeps {
  input: AgentInput;
  specs: readonly ToolSpec[];
  activities: AgentActivityProxies;
  approvals: ReturnType<typeof approvalGate>;
  questions: ReturnType<typeof personQuestions>;
  /** Where the run keeps its record of every call. */
  calls: CallRecord[];
  identity: ReturnType<typeof callIdentities>;
  /** How long each receiver (an MCP server's name, or `tracker`) said it keeps keys, as the run learns it. */
  retention: Map<string, number>;
  /** Which execution of the run this is, when the run reads what earlier ones did (`AgentInput.earlierExecutions`). */
  execution?: RunExecution;
}

/** Runs one tool call of a reply: its arguments checked, its approval if it needs one, then settled on the ladder. */
export function callRunner(deps: CallRunnerDeps) {
  const { input, specs, calls, identity } = deps;
  const approvalTools = new Set(input.approve ?? []);
  const sendAgainWhileDown = patched(RECEIVER_DOWN_PATCH);

  return async function runCall(
    call: ToolCall,
    place: { turn: number; position: number; finishReason: string | null },
  ): Promise<ToolOutput> {
    const callId = identity(call, place.turn, place.position);
    const spec = toolSpec(call.function.name, specs);
    const record: CallRecord = {
      callId,
      tool: call.function.name,
      args: call.function.arguments,
      status: 'running',
      attempts: 0,
    };
    calls.push(record);
    const fail = (error: string) => {
      record.status = 'failed';
      return (record.result = JSON.stringify({ error }));
    };
    if (!spec) return fail(`unknown tool ${call.function.name}`);
    const parsed = parseArguments(call, spec, place.finishReason);
    if ('refused' in parsed) return fail(parsed.refused);
    const args = { ...parsed.args, ...contextArgs(input, spec) };
    record.args = args;

    let approved: string | undefined;
    if (spec.needsApproval || approvalTools.has(spec.name)) {
      const decided = await approveCall(deps.approvals, record, spec, args);
      if ('denied' in decided) return (record.result = decided.denied);
      approved = decided.digest;
    }
    const request = toolRequest(input, spec, callId, args, approved);
    const facts = callFacts(input, spec, deps.retention);
    const settled = await settleCall(facts, ladderSteps(deps, { record, spec, args, request }, sendAgainWhileDown));
    record.status = settled.status;
    record.rung = settled.rung;
    return (record.result = settled.output);
  };
}

/**
 * The arguments of an MCP tool that the run fills in from its context. A run that listed its tools
 * before `contextArgs` gave its `repo` to a tool that took one (`takesRepo`).
 */
function contextArgs(input: AgentInput, spec: ToolSpec): Record<string, unknown> {
  const context: Record<string, unknown> = input.context ?? {};
  if (spec.takesRepo) return { repo: (input as { repo?: string }).repo ?? context.repo };
  return Object.fromEntries((spec.contextArgs ?? []).map((name) => [name, context[name]]));
}

/** Waits for a person's decision on the call, bound to its arguments' digest: the digest approved, or the denial. */
async function approveCall(
  approvals: ReturnType<typeof approvalGate>,
  record: CallRecord,
  spec: ToolSpec,
  args: Record<string, unknown>,
): Promise<{ digest: string } | { denied: string }> {
  record.status = 'waiting-approval';
  const digest = callDigest(spec.name, args);
  const decision = await approvals.request({ callId: record.callId, tool: spec.name, args, digest });
  // A decision the gate took is a boolean; only a run older than its checks may hold another value.
  if (!decision.approved) {
    record.status = 'denied';
    return { denied: `denied by ${decision.by}${decision.reason ? `: ${decision.reason}` : ''}` };
  }
  return { digest };
}

/** What the tool's activity is sent for the call (the same for every attempt). */
function toolRequest(
  input: AgentInput,
  spec: ToolSpec,
  callId: string,
  args: Record<string, unknown>,
  approved: string | undefined,
) {
  return {
    runId: input.runId,
    callId,
    firstRunId: workflowInfo().firstExecutionRunId,
    tool: spec.name,
    args,
    sendKey: spec.sendsKey,
    server: spec.server,
    ...(spec.registered ? { registered: true, ...(input.context ? { context: input.context } : {}) } : {}),
    ...(spec.server && !spec.readOnly && !spec.idempotent && !spec.sendsKey ? { errorMayHideEffect: true } : {}),
    ...(approved ? { approved } : {}),
  };
}

/**
 * Whether the call's receiver honours keys: a tool over MCP says it itself; the run's `keyless` says
 * it of the receivers of the registered tools (and of the tracker's once built in).
 */
const isKeyed = (input: AgentInput, spec: ToolSpec) => spec.sendsKey && (spec.server !== undefined || !input.keyless);
/** The receiver a call acts on: its MCP server's name, its registered tool's receiver, or `tracker`. */
const receiverOf = (spec: ToolSpec) => spec.server ?? (spec.registered ? (spec.receiver ?? spec.name) : 'tracker');

/** What the ladder knows of a call before it runs: how a repeat would land, and what its receiver offers. */
function callFacts(input: AgentInput, spec: ToolSpec, retention: Map<string, number>) {
  return {
    readOnly: spec.readOnly,
    idempotent: spec.idempotent,
    keyed: isKeyed(input, spec),
    // What the receiver said of its keys in an earlier answer, else the run's setting.
    retentionMs: retention.get(receiverOf(spec)) ?? input.keyRetentionMs ?? DAY_MS,
    canLookup: spec.lookup && (input.lookup ?? true),
    receiverDownMs: spec.receiverDownMs ?? input.receiverDownMs ?? DEFAULT_RECEIVER_DOWN_MS,
  };
}

/** The ladder's steps for one call, as this run takes them: an attempt, a lookup at the receiver, a question to a person. */
function ladderSteps(
  { input, activities, questions, retention, execution }: CallRunnerDeps,
  call: { record: CallRecord; spec: ToolSpec; args: Record<string, unknown>; request: ReturnType<typeof toolRequest> },
  sendAgainWhileDown: boolean,
): Parameters<typeof settleCall>[1] {
  const { record, spec, args, request } = call;
  return {
    now: () => Date.now(),
    sleep: (ms) => sleep(ms),
    status: (s) => (record.status = s),
    attempt: async (repeat) => {
      record.attempts += 1;
      // The first attempt in an execution a reset or a retry started reads what earlier ones did.
      const earlier =
        record.attempts === 1 && execution
          ? { earlier: { execution, harmless: repeat.harmless, keyLeftMs: repeat.withinMs } }
          : {};
      const outcome = await attemptTool(() => activities.runTool({ ...request, ...earlier }, repeat, record.attempts));
      if (outcome.kind === 'not-sent' && !sendAgainWhileDown) return { kind: 'refused', message: outcome.reason };
      if (outcome.kind === 'ok') record.attempts += outcome.response.attempt - 1;
      if (outcome.kind === 'ok' && outcome.response.keyRetentionMs)
        retention.set(receiverOf(spec), outcome.response.keyRetentionMs);
      return outcome;
    },
    lookup: async (keyExpired): Promise<Lookup> => {
      try {
        const found = await activities.lookupCall({
          ...request,
          // Over MCP the lookup tool gets the call's tool and key, and what the run fills in from its context.
          args: spec.server ? contextArgs(input, spec) : args,
          ...(spec.server ? { callArgs: args } : {}),
          sendKey: isKeyed(input, spec),
          lookupTool: spec.lookupTool,
          keyExpired,
        });
        if (found.happened) return { kind: 'happened', output: found.output };
        if (found.mismatch) return { kind: 'mismatch', reason: found.mismatch };
        return found.commitDeadlineMs
          ? { kind: 'not-happened', commitDeadlineMs: found.commitDeadlineMs }
          : { kind: 'not-happened' };
      } catch (err) {
        // Only a failed lookup means "cannot tell"; a cancellation of the run goes on up.
        if (!(err instanceof ActivityFailure)) throw err;
        return { kind: 'cannot-tell', reason: err.cause?.message ?? err.message };
      }
    },
    ask: (reason) => questions.ask({ callId: record.callId, tool: spec.name, args, reason }),
  };
}
