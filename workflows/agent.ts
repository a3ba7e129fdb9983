import { ApplicationFailure, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { AgentActivities } from '../activities';
import { personQuestions } from './questions';
import { approveSignal, pendingQuery, type ApproveSignal } from './signals';
import { attemptTool, type Attempt } from './outcome';
import { crashPoints } from './sinks';
import { TOOL_SPECS, toolsForModel, toolSpec, type ToolSpec } from './tools';
import type { AgentInput, AgentResult, CallRecord, ChatMessage, OpenItem, Rung, ToolCall } from './types';

const DAY_MS = 86_400_000;

const SYSTEM_PROMPT =
  'You triage bug reports. File issues for what is broken, comment with findings, search before you finish, ' +
  'then reply with a short summary.';

/**
 * The agent loop: a model activity whose reply (with its tool-call ids) is in history before any tool
 * runs, then each tool call as its own activity in the model's order, carrying `key(runId, call.id)`,
 * then the results back to the model, until it answers. A call whose outcome is unknown is settled on
 * the resolution ladder: repeat it if that is harmless, else ask the receiver, else ask a person.
 */
export async function agentWorkflow(input: AgentInput): Promise<AgentResult> {
  const timeouts = {
    modelMs: input.timeouts?.modelMs ?? 60_000,
    toolMs: input.timeouts?.toolMs ?? 30_000,
    retryInitialMs: input.timeouts?.retryInitialMs ?? 1_000,
    heartbeatMs: input.timeouts?.heartbeatMs,
  };
  /** Exponential backoff; `maximumAttempts` unset means no limit. */
  const retry = (maximumAttempts?: number) => ({
    initialInterval: timeouts.retryInitialMs,
    backoffCoefficient: 2,
    maximumInterval: timeouts.retryInitialMs * 10,
    ...(maximumAttempts ? { maximumAttempts } : {}),
  });
  const { callModel } = proxyActivities<AgentActivities>({
    startToCloseTimeout: timeouts.modelMs,
    retry: retry(), // a model call changes nothing; only its cost repeats
  });
  const toolTimeouts = { startToCloseTimeout: timeouts.toolMs, heartbeatTimeout: timeouts.heartbeatMs };
  // A harmless repeat is left to Temporal's retries, a bounded number of them; then the ladder goes on.
  const repeatable = proxyActivities<AgentActivities>({ ...toolTimeouts, retry: retry(10) });
  // A call that must not run twice gets exactly one attempt; an unknown outcome goes to the ladder.
  const once = proxyActivities<AgentActivities>({ ...toolTimeouts, retry: retry(1) });
  const { lookupCall } = proxyActivities<AgentActivities>({ ...toolTimeouts, retry: retry(5) });
  // Listing changes nothing; a server that cannot be reached fails it without retry.
  const { listTools } = proxyActivities<AgentActivities>({ ...toolTimeouts, retry: retry(10) });

  const approvalTools = new Set(input.approve ?? []);
  const useLookup = input.lookup ?? true;
  const keyed = !input.keyless;
  const retentionMs = input.keyRetentionMs ?? DAY_MS;

  const calls: CallRecord[] = [];
  const decisions = new Map<string, ApproveSignal>();
  const approvals = new Map<string, OpenItem>();
  const questions = personQuestions();
  let approvalsRequested = 0;

  setHandler(approveSignal, (decision) => {
    // The first decision wins: a repeated or contradicting approval cannot run a call twice.
    if (!decisions.has(decision.callId)) decisions.set(decision.callId, decision);
  });
  const rungs = () => Object.fromEntries(calls.filter((c) => c.rung).map((c) => [c.callId, c.rung!])) as Record<string, Rung>;
  setHandler(pendingQuery, () => ({
    runId: input.runId,
    approvals: [...approvals.values()],
    questions: questions.open(),
    rungs: rungs(),
    questionsAsked: questions.asked(),
    calls,
  }));

  /** One activity execution for the call; classifies how it ended. */
  async function attempt(record: CallRecord, spec: ToolSpec, args: Record<string, unknown>, harmless: boolean): Promise<Attempt> {
    const acts = harmless ? repeatable : once;
    record.attempts += 1;
    const outcome = await attemptTool(() =>
      acts.runTool({
        runId: input.runId,
        callId: record.callId,
        tool: spec.name,
        args,
        repo: input.repo,
        sendKey: spec.sendsKey,
        trackerUrl: input.trackerUrl,
        server: spec.server,
      }),
    );
    if (outcome.kind === 'ok') record.attempts += outcome.response.attempt - 1;
    return outcome;
  }

  /** Runs a call until its outcome is known, climbing the ladder when an attempt leaves it unknown. */
  async function settle(record: CallRecord, spec: ToolSpec, args: Record<string, unknown>): Promise<string> {
    const firstAt = Date.now();
    let rung: Rung = 'clean';
    for (;;) {
      // Rung 1: a repeat is harmless if the tool only reads, is idempotent, or sent a key the receiver still holds.
      const keyHeld = spec.sendsKey && keyed && Date.now() - firstAt < retentionMs;
      const harmless = spec.readOnly || spec.idempotent || keyHeld;
      record.status = 'running';
      const outcome = await attempt(record, spec, args, harmless);
      if (outcome.kind === 'ok') {
        if (rung === 'clean' && outcome.response.attempt > 1) rung = 'repeat';
        return done(record, rung, outcome.response.output);
      }
      if (outcome.kind === 'refused') {
        record.status = 'failed';
        record.rung = rung;
        return (record.result = JSON.stringify({ error: outcome.message }));
      }
      if (spec.readOnly) {
        // Nothing can have changed; the model can decide what to do without the answer.
        return done(record, rung, JSON.stringify({ error: `no answer: ${outcome.reason}` }));
      }

      // Rung 2: ask the receiver whether the call happened.
      if (spec.lookup && useLookup) {
        const found = await lookupCall({
          runId: input.runId,
          callId: record.callId,
          tool: spec.name,
          // Over MCP the lookup tool gets the call's tool and key, and the run's repo if it takes one.
          args: spec.server ? (spec.takesRepo ? { repo: input.repo } : {}) : args,
          repo: input.repo,
          sendKey: spec.sendsKey && keyed,
          trackerUrl: input.trackerUrl,
          server: spec.server,
          lookupTool: spec.lookupTool,
        }).catch(() => null); // the receiver cannot tell: on to a person
        if (found) {
          rung = 'lookup';
          if (found.happened) return done(record, rung, found.output ?? JSON.stringify({ ok: true }));
          continue; // it never happened: running it now is its first effect
        }
      }

      // Rung 3: ask a person, who answers by the `resolve` signal.
      record.status = 'asking';
      const answer = await questions.ask({ callId: record.callId, tool: spec.name, args, reason: outcome.reason });
      rung = 'person';
      if (answer.happened) {
        return done(record, rung, answer.result ?? JSON.stringify({ ok: true, confirmedBy: answer.by ?? 'a person' }));
      }
    }
  }

  function done(record: CallRecord, rung: Rung, output: string): string {
    record.status = 'done';
    record.rung = rung;
    record.result = output;
    return output;
  }

  /** One tool call of a reply: approval if needed, then settle it. */
  async function runCall(call: ToolCall, specs: readonly ToolSpec[]): Promise<string> {
    const spec = toolSpec(call.function.name, specs);
    let args: Record<string, unknown>;
    try {
      args = JSON.parse(call.function.arguments) as Record<string, unknown>;
    } catch {
      args = {};
    }
    const record: CallRecord = { callId: call.id, tool: call.function.name, args, status: 'running', attempts: 0 };
    calls.push(record);
    if (!spec) {
      record.status = 'failed';
      return (record.result = JSON.stringify({ error: `unknown tool ${call.function.name}` }));
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      record.status = 'failed';
      return (record.result = JSON.stringify({ error: 'arguments must be a JSON object' }));
    }
    if (spec.takesRepo) args = { ...args, repo: input.repo };

    if (spec.needsApproval || approvalTools.has(spec.name)) {
      record.status = 'waiting-approval';
      approvalsRequested += 1;
      approvals.set(call.id, { callId: call.id, tool: spec.name, args });
      crashPoints.reached('approval.pending', `${spec.name} ${call.id}`);
      await condition(() => decisions.has(call.id));
      approvals.delete(call.id);
      const decision = decisions.get(call.id)!;
      if (!decision.approved) {
        record.status = 'denied';
        const why = decision.reason ? `: ${decision.reason}` : '';
        return (record.result = `denied by ${decision.by}${why}`);
      }
    }
    return settle(record, spec, args);
  }

  const messages: ChatMessage[] = [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: input.task },
  ];
  // The tools of the run's MCP servers are listed once, into history, so a replay sees the same ones.
  let specs: readonly ToolSpec[] = TOOL_SPECS;
  if (input.mcpServers?.length) {
    const servers = input.mcpServers;
    specs = await listTools({ servers }).catch((err: Error) => {
      const why = (err.cause as Error | undefined)?.message ?? err.message;
      throw ApplicationFailure.nonRetryable(`cannot list the tools of MCP servers ${servers.join(', ')}: ${why}`, 'NoTools');
    });
  }
  const tools = toolsForModel(specs);
  const maxTurns = input.maxTurns ?? 10;
  for (let turn = 1; turn <= maxTurns; turn++) {
    // The reply, call ids included, is in history once this returns, before any of its tools run.
    const reply = await callModel({ runId: input.runId, model: input.model, messages, tools });
    messages.push(reply);
    if (!reply.tool_calls?.length) {
      return {
        runId: input.runId,
        answer: reply.content ?? '',
        turns: turn,
        calls,
        rungs: rungs(),
        questionsAsked: questions.asked(),
        approvalsRequested,
      };
    }
    for (const call of reply.tool_calls) {
      const content = await runCall(call, specs);
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
  throw ApplicationFailure.nonRetryable(`no final answer after ${maxTurns} model replies`, 'TooManyTurns');
}
