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
import { contextProblem, NO_TOOLS } from './run-input';
import { callIdentities, callRunner } from './calls';
import { personQuestions } from './questions';
import { pendingQuery } from './signals';
import { BUILT_IN_TRACKER_TOOLS, NAMED_TOOLS_PATCH } from './legacy-tools';
import { DEFAULT_INSTRUCTIONS, toolsForModel, type ToolSpec } from './tools';
import type { AgentInput, AgentResult, CallRecord, ChatMessage, Rung } from './types';
import { runVisibility } from './visibility';

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
 */
export async function agentWorkflow(input: AgentInput): Promise<AgentResult> {
  const badContext = contextProblem(input.context);
  if (badContext) throw ApplicationFailure.nonRetryable(`${badContext}; nothing ran`, 'BadInput');
  const carried = input.carried;
  const activities = agentActivities(input.timeouts);
  const calls: CallRecord[] = carried?.calls ?? [];
  // What the run waits for goes to its memo and search attributes, which the server answers for with
  // no worker alive; its story goes to its current details, for the Web UI.
  const shown = runVisibility(workflowInfo().workflowId, calls, input.searchAttributes ?? true);
  const publish = () => shown.waiting({ approvals: approvals.open(), questions: questions.open() });
  const approvals = approvalGate(publish, input.approvalTimeoutMs, carried?.approvals);
  const questions = personQuestions(publish, carried?.questions);
  const identity = callIdentities(carried?.callIds);
  const retention = new Map<string, number>(carried?.retention ?? []);

  const rungs = () =>
    Object.fromEntries(calls.filter((c) => c.rung).map((c) => [c.callId, c.rung!])) as Record<string, Rung>;
  setHandler(pendingQuery, () => ({
    runId: input.runId,
    approvals: approvals.open(),
    questions: questions.open(),
    refusedAnswers: questions.refused(),
    refusedDecisions: approvals.refused(),
    rungs: rungs(),
    questionsAsked: questions.asked(),
    calls,
  }));

  // The run's own tools and those of its MCP servers are listed once, into history, so a replay
  // sees the same ones. A run that names neither is refused; one started before that rule had the
  // tracker's tools built in, and its history replays with them.
  const listed = Boolean(input.mcpServers?.length || input.tools?.length);
  if (!listed && !carried && patched(NAMED_TOOLS_PATCH))
    throw ApplicationFailure.nonRetryable(`${NO_TOOLS}; nothing ran`, 'BadInput');
  let specs: readonly ToolSpec[] = carried?.specs ?? BUILT_IN_TRACKER_TOOLS;
  if (listed && !carried?.specs) {
    const servers = input.mcpServers ?? [];
    const request = {
      servers,
      ...(input.tools?.length ? { tools: input.tools } : {}),
      // An MCP tool's arguments named as keys of the context are the run's to fill in, not the model's.
      ...(input.context && servers.length ? { contextKeys: Object.keys(input.context) } : {}),
    };
    specs = await activities.listTools(request).catch((err: Error) => {
      // A run cancelled while its tools were being listed ends cancelled, not as a run with no tools.
      if (isCancellation(err)) throw err;
      const why = (err.cause as Error | undefined)?.message ?? err.message;
      const named = [
        ...(input.tools?.length ? [`registered tools ${input.tools.join(', ')}`] : []),
        ...(servers.length ? [`MCP servers ${servers.join(', ')}`] : []),
      ];
      throw ApplicationFailure.nonRetryable(`cannot list the tools of ${named.join(' and ')}: ${why}`, 'NoTools');
    });
  }
  // A reset or retried execution reads what earlier ones did before it asks the model or sends a call
  // again (`AgentInput.earlierExecutions`). The activities decide, so the commands are the same either way.
  const { runId, originalExecutionRunId, attempt } = workflowInfo();
  const execution = input.earlierExecutions === false ? undefined : { runId, originalExecutionRunId, attempt };
  const runCall = callRunner({ input, specs, activities, approvals, questions, calls, identity, retention, execution });

  const messages: ChatMessage[] = carried?.messages ?? [
    { role: 'system', content: input.instructions ?? DEFAULT_INSTRUCTIONS },
    { role: 'user', content: input.task },
  ];
  const tools = toolsForModel(specs);
  const maxTurns = input.maxTurns ?? 10;
  const firstTurn = (carried?.turns ?? 0) + 1;
  for (let turn = firstTurn; turn <= maxTurns; turn++) {
    if (turn - firstTurn >= (input.turnsPerRun ?? 20) || workflowInfo().continueAsNewSuggested) {
      // Between two turns no call is open: the conversation and what the gates remember is all there is.
      await continueAsNew<typeof agentWorkflow>({
        ...input,
        carried: {
          turns: turn - 1,
          messages,
          calls,
          ...(listed ? { specs: [...specs] } : {}),
          callIds: identity.used(),
          retention: [...retention.entries()],
          approvals: approvals.snapshot(),
          questions: questions.snapshot(),
        },
      });
    }
    // The reply, call ids included, is in history once this returns, before any of its tools run.
    shown.doing(`turn ${turn}: waiting for the model's reply`);
    const { message: reply, finishReason } = await activities.callModel(
      { runId: input.runId, model: input.model, messages, tools, ...(execution ? { execution } : {}) },
      turn,
    );
    messages.push(reply);
    if (!reply.tool_calls?.length) {
      shown.doing(`finished: the model answered at turn ${turn}`);
      return {
        runId: input.runId,
        answer: reply.content ?? '',
        turns: turn,
        calls,
        rungs: rungs(),
        questionsAsked: questions.asked(),
        approvalsRequested: approvals.requested(),
      };
    }
    for (const [i, call] of reply.tool_calls.entries()) {
      shown.doing(`turn ${turn}: tool call ${i + 1} of ${reply.tool_calls.length}, ${call.function.name}`);
      const content = await runCall(call, { turn, position: i + 1, finishReason });
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
  throw ApplicationFailure.nonRetryable(`no final answer after ${maxTurns} model replies`, 'TooManyTurns');
}
