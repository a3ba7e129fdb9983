// The agent loop: the model's reply into history, then each tool call as its own activity, until the model answers.
import {
  ApplicationFailure,
  continueAsNew,
  isCancellation,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { agentActivities } from './agent-activities';
import { approvalGate } from './approvals';
import { carriedProblem, contextProblem, NO_TOOLS, textsProblem } from './run-input';
import { callIdentities, callRunner } from './calls';
import { personQuestions } from './questions';
import { pendingQuery } from './signals';
import { BUILT_IN_TRACKER_TOOLS, NAMED_TOOLS_PATCH } from './legacy-tools';
import { DEFAULT_INSTRUCTIONS, toolsForModel, type ToolSpec } from './tools';
import type { AgentInput, AgentResult, CallRecord, ConversationRef, Rung } from './types';
import { runVisibility } from './visibility';
import {
  DEFAULT_MAX_CONVERSATION_BYTES,
  jsonBytes,
  messageBytes,
  PAYLOAD_LIMIT_BYTES,
  refuseOversizeConversation,
  refuseOversizePayload,
} from './sizes';

/**
 * The agent loop: a model activity whose reply (with its tool-call ids) is in history before any tool
 * runs, then each tool call as its own activity in the model's order, carrying a key made from the
 * run id and the call's identity, then the results back to the model, until it answers. A call whose
 * outcome is unknown is settled on the resolution ladder (`ladder.ts`): repeat it if that is harmless,
 * else ask the receiver, else ask a person.
 *
 * A long conversation continues as new between two turns (`turnsPerRun`, or when the server suggests
 * it): the next run starts from the conversation and what the approvals and questions must remember,
 * with the same `runId`, so every key stays the same.
 *
 * On a worker with a payload store the conversation travels by reference: each model call stores its
 * turn and returns the reference, which the next call (and a continue-as-new) names instead of the
 * messages, and a large tool output is stored by its activity. Without one every message travels
 * inline, and a payload over Temporal's limit fails the run with its size and the remedy instead of
 * failing its workflow task for ever.
 */
export async function agentWorkflow(input: AgentInput): Promise<AgentResult> {
  refuseBadStart(input);
  const carried = input.carried;
  const activities = agentActivities(input.timeouts);
  const calls: CallRecord[] = carried?.calls ?? [];
  const { shown, approvals, questions } = personGates(input, calls);
  const identity = callIdentities(carried?.callIds);
  const retention = new Map<string, number>(carried?.retention ?? []);

  const { listed, specs } = await runTools(input, activities);
  // A reset or retried execution reads what earlier ones did before it asks the model or sends a call
  // again (`AgentInput.earlierExecutions`). The activities decide, so the commands are the same either way.
  const { runId, originalExecutionRunId, attempt } = workflowInfo();
  const execution = input.earlierExecutions === false ? undefined : { runId, originalExecutionRunId, attempt };
  const runCall = callRunner({ input, specs, activities, approvals, questions, calls, identity, retention, execution });

  const conversation = startingConversation(input);
  let conversationBytes = carried?.conversationBytes ?? conversation.added.reduce((n, m) => n + messageBytes(m), 0);
  const maxConversationBytes = input.maxConversationBytes ?? DEFAULT_MAX_CONVERSATION_BYTES;
  // With no store, everything travels inline, and Temporal's payload limit is the run's to respect.
  const inline = () => conversation.prefix === undefined;
  const tools = toolsForModel(specs);
  const maxTurns = input.maxTurns ?? 10;
  const firstTurn = (carried?.turns ?? 0) + 1;
  for (let turn = firstTurn; turn <= maxTurns; turn++) {
    if (turn - firstTurn >= (input.turnsPerRun ?? 20) || workflowInfo().continueAsNewSuggested) {
      // Between two turns no call is open: the conversation and what the gates remember is all there is.
      await continueAsNewWith(input, inline(), {
        turns: turn - 1,
        conversation,
        conversationBytes,
        calls,
        ...(listed ? { specs: [...specs] } : {}),
        callIds: identity.used(),
        retention: [...retention.entries()],
        approvals: approvals.snapshot(),
        questions: questions.snapshot(),
      });
    }
    // The reply, call ids included, is in history once this returns, before any of its tools run.
    shown.doing(`turn ${turn}: waiting for the model's reply`);
    refuseOversizeConversation(conversationBytes, maxConversationBytes);
    const request = modelRequest(input, conversation, tools, turn, execution);
    if (inline()) refuseOversizePayload(`the model call's input at turn ${turn}`, jsonBytes(request));
    const { message: reply, finishReason, conversation: recorded } = await activities.callModel(request, turn);
    conversationBytes += messageBytes(reply);
    // A worker with a store keeps the turn: the next call names it instead of sending it again.
    if (recorded) {
      conversation.prefix = recorded;
      conversation.added = [];
    } else conversation.added.push(reply);
    if (!reply.tool_calls?.length) {
      shown.doing(`finished: the model answered at turn ${turn}`);
      const result: AgentResult = {
        runId: input.runId,
        answer: reply.content ?? '',
        turns: turn,
        calls,
        rungs: rungsOf(calls),
        questionsAsked: questions.asked(),
        approvalsRequested: approvals.requested(),
      };
      return inline() ? withinPayloadLimit(result) : result;
    }
    for (const [i, call] of reply.tool_calls.entries()) {
      shown.doing(`turn ${turn}: tool call ${i + 1} of ${reply.tool_calls.length}, ${call.function.name}`);
      const content = await runCall(call, { turn, position: i + 1, finishReason });
      conversation.added.push({ role: 'tool', tool_call_id: call.id, content });
      conversationBytes += messageBytes({ role: 'tool', content });
    }
  }
  throw ApplicationFailure.nonRetryable(`no final answer after ${maxTurns} model replies`, 'TooManyTurns');
}

/** The rung each settled call was settled on, by call id. */
function rungsOf(calls: readonly CallRecord[]): Record<string, Rung> {
  return Object.fromEntries(calls.filter((c) => c.rung).map((c) => [c.callId, c.rung!]));
}

/**
 * The gates that wait on a person (approvals, questions), restored from what an earlier run carried.
 * What the run waits for goes to its memo and search attributes, which the server answers for with no
 * worker alive; its story goes to its current details, for the Web UI; and the pending query answers.
 */
function personGates(input: AgentInput, calls: CallRecord[]) {
  const shown = runVisibility(workflowInfo().workflowId, calls, input.searchAttributes ?? true);
  const publish = () => shown.waiting({ approvals: approvals.open(), questions: questions.open() });
  const approvals = approvalGate(publish, input.approvalTimeoutMs, input.carried?.approvals);
  const questions = personQuestions(publish, input.carried?.questions);
  answerPendingQuery(input.runId, approvals, questions, calls);
  return { shown, approvals, questions };
}

/** `npm run status`'s query: what the run waits for, what it refused, and its calls so far. */
function answerPendingQuery(
  runId: string,
  approvals: ReturnType<typeof approvalGate>,
  questions: ReturnType<typeof personQuestions>,
  calls: CallRecord[],
): void {
  setHandler(pendingQuery, () => ({
    runId,
    approvals: approvals.open(),
    questions: questions.open(),
    refusedAnswers: questions.refused(),
    refusedDecisions: approvals.refused(),
    refusedCounts: { decisions: approvals.refusedCount(), answers: questions.refusedCount() },
    rungs: rungsOf(calls),
    questionsAsked: questions.asked(),
    calls,
  }));
}

/** Continues as new with what this run carries (an inline run's input must fit Temporal's payload limit). */
async function continueAsNewWith(
  input: AgentInput,
  inline: boolean,
  carried: NonNullable<AgentInput['carried']>,
): Promise<never> {
  const next: AgentInput = { ...input, carried };
  if (inline) refuseOversizePayload('the input to continue as new', jsonBytes(next));
  return continueAsNew<typeof agentWorkflow>(next);
}

/** The model call of a turn: the conversation (by reference where the store keeps it), the tools, and who asks. */
function modelRequest(
  input: AgentInput,
  conversation: ConversationRef,
  tools: ReturnType<typeof toolsForModel>,
  turn: number,
  execution: { runId: string; originalExecutionRunId: string; attempt: number } | undefined,
) {
  return {
    runId: input.runId,
    model: input.model,
    conversation: { ...(conversation.prefix ? { prefix: conversation.prefix } : {}), added: conversation.added },
    tools,
    turn,
    ...(execution ? { execution } : {}),
    firstRunId: workflowInfo().firstExecutionRunId,
  };
}

/** Refuses a start whose context or texts are bad, or that hands the run state it did not hand itself: nothing runs. */
function refuseBadStart(input: AgentInput): void {
  const badContext = contextProblem(input.context) ?? textsProblem(input);
  if (badContext) throw ApplicationFailure.nonRetryable(`${badContext}; nothing ran`, 'BadInput');
  // A run trusts only the state it handed itself: carried state from a start is refused before anything runs.
  const badCarried = carriedProblem(input.carried, workflowInfo());
  if (badCarried) throw ApplicationFailure.nonRetryable(`${badCarried}; nothing ran`, 'BadInput');
}

/**
 * The run's tools: its own and those of its MCP servers, listed once, into history, so a replay sees
 * the same ones (`listed`: the run names some). A run that names neither is refused; one started
 * before that rule had the tracker's tools built in, and its history replays with them.
 */
async function runTools(
  input: AgentInput,
  activities: ReturnType<typeof agentActivities>,
): Promise<{ listed: boolean; specs: readonly ToolSpec[] }> {
  const { carried } = input;
  const listed = Boolean(input.mcpServers?.length || input.tools?.length);
  if (!listed && !carried && patched(NAMED_TOOLS_PATCH))
    throw ApplicationFailure.nonRetryable(`${NO_TOOLS}; nothing ran`, 'BadInput');
  if (!listed || carried?.specs) return { listed, specs: carried?.specs ?? BUILT_IN_TRACKER_TOOLS };
  const servers = input.mcpServers ?? [];
  const request = {
    servers,
    ...(input.tools?.length ? { tools: input.tools } : {}),
    // An MCP tool's arguments named as keys of the context are the run's to fill in, not the model's.
    ...(input.context && servers.length ? { contextKeys: Object.keys(input.context) } : {}),
    // The registered tools check the context (where it would send them) before anything runs.
    ...(input.context && input.tools?.length ? { context: input.context } : {}),
  };
  const specs = await activities.listTools(request).catch((err: Error) => {
    // A run cancelled while its tools were being listed ends cancelled, not as a run with no tools.
    if (isCancellation(err)) throw err;
    const why = (err.cause as Error | undefined)?.message ?? err.message;
    if ((err.cause as ApplicationFailure | undefined)?.type === 'BadInput')
      throw ApplicationFailure.nonRetryable(`${why}; nothing ran`, 'BadInput');
    const named = [
      ...(input.tools?.length ? [`registered tools ${input.tools.join(', ')}`] : []),
      ...(servers.length ? [`MCP servers ${servers.join(', ')}`] : []),
    ];
    throw ApplicationFailure.nonRetryable(`cannot list the tools of ${named.join(' and ')}: ${why}`, 'NoTools');
  });
  return { listed, specs };
}

/** The turns the store keeps (`prefix`), and the messages since; a chain from before long runs carried them all. */
function startingConversation(input: AgentInput): ConversationRef {
  const { carried } = input;
  return carried?.conversation
    ? { ...carried.conversation, added: [...carried.conversation.added] }
    : {
        added: carried?.messages ?? [
          { role: 'system', content: input.instructions ?? DEFAULT_INSTRUCTIONS },
          { role: 'user', content: input.task },
        ],
      };
}

/** A result whose inline outputs add up past the payload limit lists the calls without them (history has them). */
function withinPayloadLimit(result: AgentResult): AgentResult {
  if (jsonBytes(result) <= PAYLOAD_LIMIT_BYTES) return result;
  return { ...result, calls: result.calls.map(({ result: _output, ...call }) => call), outputsLeftOut: true };
}
