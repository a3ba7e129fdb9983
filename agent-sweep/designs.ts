// The five designs the sweep compares with the agent loop, from saving once per turn to keys and
// markers: workflow code of the sweep's own, run by its worker beside the loop (agent-sweep/workflows.ts).
import { ApplicationFailure, proxyActivities, setHandler } from '@temporalio/workflow';
import type { AgentActivities } from '../activities';
import { attemptTool, inlineText } from '../workflows/outcome';
import { personQuestions } from '../workflows/questions';
import { pendingQuery } from '../workflows/signals';
import { toolsForModel } from '../workflows/tools';
import type { ChatMessage, RunTimeouts, ToolCall } from '../workflows/types';
import { TRACKER_TOOL_SPECS } from '../tracker/tool-specs';
import type { TurnActivities } from './turn-activity';

/**
 * The five designs the crash sweep compares, from the simplest to the one the agent loop uses. Each
 * triages with the triage example's tools, registered on the sweep's worker (the loop's `runTool`
 * runs them), and the "save once per turn" one with a whole-turn activity of the sweep's own:
 * - `turn`: save once per turn; the model call and all its tool calls are one activity, no keys.
 * - `reply`: save after the reply; a model activity, then one activity per tool call, default retries, no keys.
 * - `keys`: as `reply`, with idempotency keys that the tracker honours.
 * - `markers`: attempt markers, no keys; an effectful call gets one attempt, and one whose outcome is
 *   unknown is settled by a person (no lookup rung), against a keyless tracker.
 * - `keys-markers`: keys and markers; an unknown outcome is repeated because the key makes it harmless.
 */
export type Design = 'turn' | 'reply' | 'keys' | 'markers' | 'keys-markers';

/** Input of one run of a design. */
export interface DesignInput {
  runId: string;
  task: string;
  repo: string;
  design: Design;
  trackerUrl?: string;
  /** The loop's timeouts, and `turnMs`: the whole-turn activity's start-to-close timeout (default 120 s). */
  timeouts?: RunTimeouts & { turnMs?: number };
}

/** Result of one run of a design. */
export interface DesignResult {
  answer: string;
  questionsAsked: number;
}

const SYSTEM_PROMPT = 'You triage bug reports.';

/** The triage tools in the model's request format. */
const TOOLS = toolsForModel(TRACKER_TOOL_SPECS);

/** One of the simplified loops the sweep compares with the agent loop; see {@link Design}. */
export async function designWorkflow(input: DesignInput): Promise<DesignResult> {
  const t = { modelMs: 60_000, toolMs: 30_000, turnMs: 120_000, retryInitialMs: 1_000, ...input.timeouts };
  // Temporal's default policy (no attempt limit), paced for the run.
  const defaultRetry = {
    initialInterval: t.retryInitialMs,
    backoffCoefficient: 2,
    maximumInterval: t.retryInitialMs * 10,
  };
  const { callModel } = proxyActivities<AgentActivities>({ startToCloseTimeout: t.modelMs, retry: defaultRetry });
  // A tool call heartbeats where the run's timeouts give it a heartbeat timeout (as the loop's do).
  const tool = { startToCloseTimeout: t.toolMs, ...(t.heartbeatMs ? { heartbeatTimeout: t.heartbeatMs } : {}) };
  const { runTool } = proxyActivities<AgentActivities>({ ...tool, retry: defaultRetry });
  const { runTurn } = proxyActivities<TurnActivities>({ startToCloseTimeout: t.turnMs, retry: defaultRetry });
  const { runTool: runToolOnce } = proxyActivities<AgentActivities>({
    ...tool,
    retry: { ...defaultRetry, maximumAttempts: 1 },
  });

  const questions = personQuestions();
  setHandler(pendingQuery, () => ({
    runId: input.runId,
    approvals: [],
    questions: questions.open(),
    refusedAnswers: questions.refused(),
    refusedDecisions: [],
    rungs: {},
    questionsAsked: questions.asked(),
    calls: [],
  }));

  const keyed = input.design === 'keys' || input.design === 'keys-markers';
  // The triage tools send the key whatever the design: the keyless designs' tracker ignores it.
  const request = (call: ToolCall) => ({
    runId: input.runId,
    callId: call.id,
    tool: call.function.name,
    args: JSON.parse(call.function.arguments) as Record<string, unknown>,
    sendKey: keyed,
    registered: true,
    context: { repo: input.repo, ...(input.trackerUrl ? { trackerUrl: input.trackerUrl } : {}) },
  });

  /** A call under markers: one attempt, then a person if its outcome is unknown and a repeat is not harmless. */
  async function withMarkers(call: ToolCall): Promise<string> {
    const effect = TRACKER_TOOL_SPECS.find((t) => t.name === call.function.name)?.effect;
    const harmless = effect === 'read-only' || (keyed && effect === 'keyed');
    for (;;) {
      const outcome = await attemptTool(() => (harmless ? runTool : runToolOnce)(request(call)));
      if (outcome.kind === 'ok') return inlineText(outcome.response.output);
      // The designs compared by the sweep take a refused connection as a refusal, as the agent loop once did.
      if (outcome.kind === 'refused') return JSON.stringify({ error: outcome.message });
      if (outcome.kind === 'not-sent') return JSON.stringify({ error: outcome.reason });
      const answer = await questions.ask({
        callId: call.id,
        tool: call.function.name,
        args: request(call).args,
        reason: outcome.reason,
      });
      if (answer.happened) return answer.result ?? JSON.stringify({ ok: true });
    }
  }

  const messages: ChatMessage[] = [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: input.task },
  ];
  for (let turn = 1; turn <= 10; turn++) {
    if (input.design === 'turn') {
      const out = await runTurn({
        runId: input.runId,
        repo: input.repo,
        trackerUrl: input.trackerUrl,
        messages,
        tools: TOOLS,
      });
      messages.push(...out.messages);
      if (out.answer !== null) return { answer: out.answer, questionsAsked: questions.asked() };
      continue;
    }
    const { message: reply } = await callModel({ runId: input.runId, messages, tools: TOOLS });
    messages.push(reply);
    if (!reply.tool_calls?.length) return { answer: reply.content ?? '', questionsAsked: questions.asked() };
    for (const call of reply.tool_calls) {
      let content: string;
      if (input.design === 'markers' || input.design === 'keys-markers') {
        content = await withMarkers(call);
      } else {
        const outcome = await attemptTool(() => runTool(request(call)));
        content =
          outcome.kind === 'ok'
            ? inlineText(outcome.response.output)
            : JSON.stringify({ error: outcome.kind === 'refused' ? outcome.message : outcome.reason });
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
  // An ApplicationFailure fails the run; a plain Error would fail the workflow task, retried forever.
  throw ApplicationFailure.nonRetryable('no final answer after 10 turns', 'TooManyTurns');
}
