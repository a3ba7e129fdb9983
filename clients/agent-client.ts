// What a client does with agent runs, as functions: start one, approve or deny a call, answer a question, see what waits.
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { unknownKeys } from '../common/fields';
import { AGENT_WAITING, WAITING_FOR_A_PERSON, WAITING_NONE } from '../common/search-attributes';
import type { agentWorkflow } from '../workflows/agent';
import { contextProblem, textsProblem, toolsProblem } from '../workflows/run-input';
import { fieldOverCap } from '../workflows/signal-input';
import { approveSignal, approveUpdate, resolveSignal, resolveUpdate } from '../workflows/signals';
import type {
  AgentInput,
  AnswerTaken,
  ApproveSignal,
  DecisionTaken,
  OpenItem,
  ResolveSignal,
  WaitingState,
} from '../workflows/types';
import { sendToRun, type Sent, type Via } from './send-to-run';
import { ensureSearchAttributes } from '../workers/search-attributes';
import { waitingFromMemo, waitingRun } from './connect';

/** What {@link startAgentRun} takes: the run's input (a fresh `runId` unless given) and where it runs. */
export interface StartAgentRunOptions extends Omit<AgentInput, 'runId' | 'carried'> {
  taskQueue: string;
  /** Fresh for every run and never reused: each call's key is made from it. Default a random UUID. */
  runId?: string;
  /** Default `agent-<runId>`. */
  workflowId?: string;
  /** What the Web UI shows for the run. Default: its task. */
  staticSummary?: string;
  staticDetails?: string;
}

/** Every option of {@link startAgentRun}: one given from plain JavaScript that is not here is refused. */
const START_OPTIONS = {
  taskQueue: true,
  runId: true,
  workflowId: true,
  staticSummary: true,
  staticDetails: true,
  task: true,
  instructions: true,
  tools: true,
  context: true,
  keyless: true,
  approve: true,
  approvalTimeoutMs: true,
  searchAttributes: true,
  receiverDownMs: true,
  lookup: true,
  earlierExecutions: true,
  model: true,
  keyRetentionMs: true,
  mcpServers: true,
  maxTurns: true,
  turnsPerRun: true,
  maxConversationBytes: true,
  timeouts: true,
} satisfies Record<keyof StartAgentRunOptions, true>;

/**
 * Starts one agent run. Unless the input sets `searchAttributes: false`, the namespace gets the
 * agent's search attributes first (the run sets them when it waits for a person). Input the run would
 * refuse (a context that is not an object, no tools, the state only continue-as-new carries) is refused
 * here, and nothing starts.
 */
export async function startAgentRun(
  client: Client,
  options: StartAgentRunOptions,
): Promise<WorkflowHandle<typeof agentWorkflow>> {
  // `carried` is refused below, with why.
  const unknown = unknownKeys(options, [...Object.keys(START_OPTIONS), 'carried'], 'an option of startAgentRun');
  if (unknown.length > 0) throw new TypeError(unknown.join('; '));
  const { taskQueue, workflowId, staticSummary, staticDetails, runId = randomUUID(), ...rest } = options;
  const input: AgentInput = { ...rest, runId };
  const carried = (options as { carried?: unknown }).carried !== undefined;
  const bad =
    contextProblem(input.context) ??
    textsProblem(input) ??
    toolsProblem(input) ??
    (carried ? 'carried is the state a run hands itself when it continues as new; a start cannot give it' : null);
  if (bad) throw new TypeError(bad);
  const withAttributes = input.searchAttributes !== false;
  if (withAttributes) await ensureSearchAttributes(client.connection.operatorService, client.options.namespace);
  return client.workflow.start<typeof agentWorkflow>('agentWorkflow', {
    taskQueue,
    workflowId: workflowId ?? `agent-${runId}`,
    args: [input],
    staticSummary: staticSummary ?? input.task,
    ...(staticDetails ? { staticDetails } : {}),
    ...(withAttributes ? { typedSearchAttributes: [{ key: AGENT_WAITING, value: [WAITING_NONE] }] } : {}),
  });
}

/** What a run waits for (its waiting approvals and open questions) and its status, from its memo: no worker needed. */
export async function waitingFor(client: Client, workflowId: string): Promise<WaitingState & { status: string }> {
  const { waiting, status } = await waitingRun(client, workflowId);
  return { ...waiting, status };
}

/**
 * Refuses, before anything is sent, a field over the cap the run would refuse it for
 * (`SIGNAL_FIELD_CAPS`): a person's words are bounded where they enter.
 */
function overCap(fields: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(fields)) {
    const over = fieldOverCap(name, value);
    if (over) throw new TypeError(`${over}; nothing was sent`);
  }
}

/** Thrown when a decision or an answer names a call or question the run does not wait on, or other arguments. */
export class NotWaitingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotWaitingError';
  }
}

/** Options of {@link approveCall} and {@link denyCall}. */
export interface DecisionOptions {
  /** Who decided. */
  by: string;
  /**
   * The digest of the tool and arguments the person was shown: refused (nothing sent) if the run
   * waits with another. Unset: the digest the run published, so the decision binds to that call.
   */
  digest?: string;
  /** Why, for a denial. */
  reason?: string;
  /** How it goes: by Update when a worker answers, else by signal (`auto`, the default), or always one way ({@link Via}). */
  via?: Via;
}

/** What a decision was sent for (the call as it waits: tool, arguments, digest), and how it went (`sent`). */
export type Decided = OpenItem & { sent: Sent<DecisionTaken> };

async function decide(
  client: Client,
  workflowId: string,
  callId: string,
  approved: boolean,
  options: DecisionOptions,
): Promise<Decided> {
  overCap({ by: options.by, reason: options.reason, digest: options.digest });
  // From the run's memo, not a query: a person can decide while no worker is alive.
  const { handle, waiting } = await waitingRun(client, workflowId);
  const item = waiting.approvals.find((a) => a.callId === callId);
  if (!item) {
    const names = waiting.approvals.map((a) => a.callId).join(', ') || 'none';
    throw new NotWaitingError(`call ${callId} of ${workflowId} is not waiting for approval (waiting: ${names})`);
  }
  if (options.digest && options.digest !== item.digest)
    throw new NotWaitingError(
      `call ${callId} of ${workflowId} waits with ${item.tool} ${item.digest ?? '(no digest)'}, not ${options.digest}: ` +
        'its arguments are not those you were shown',
    );
  const sent = await sendToRun<DecisionTaken, ApproveSignal>(
    client,
    handle,
    approveUpdate,
    approveSignal,
    {
      callId,
      approved,
      by: options.by,
      ...(options.reason ? { reason: options.reason } : {}),
      ...(item.digest ? { digest: item.digest } : {}),
    },
    options.via,
  );
  return { ...item, sent };
}

/**
 * Approves one call that waits for approval; returns what it waits with (tool, arguments, digest) and
 * how it went: taken at once by Update, or sent by signal when no worker answered. A decision the run
 * refuses throws `RefusedError` with its reason, and changes nothing.
 */
export function approveCall(client: Client, workflowId: string, callId: string, options: DecisionOptions) {
  return decide(client, workflowId, callId, true, options);
}

/** Denies one call that waits for approval: nothing of it runs, and the model is told `reason`. */
export function denyCall(client: Client, workflowId: string, callId: string, options: DecisionOptions) {
  return decide(client, workflowId, callId, false, options);
}

/** A person's answer to "did this call happen?". */
export interface AnswerOptions {
  happened: boolean;
  /** What the call returned, if it happened and the person knows. */
  result?: string;
  by: string;
  /** How it goes (see {@link DecisionOptions.via}). */
  via?: Via;
}

/**
 * Answers the run's open question whether a call happened, named by its id (`CALL_ID#N`) or by its
 * call's id when that call has one open question. `happened: false` makes the run send it again.
 */
export async function answerQuestion(
  client: Client,
  workflowId: string,
  named: string,
  options: AnswerOptions,
): Promise<OpenItem & { sent: Sent<AnswerTaken> }> {
  if (options.result !== undefined && !options.happened)
    throw new NotWaitingError('a result goes with happened: true only');
  overCap({ by: options.by, result: options.result });
  const { handle, waiting } = await waitingRun(client, workflowId);
  const question = waiting.questions.find((q) => q.questionId === named || q.callId === named);
  if (!question?.questionId) {
    const open = waiting.questions.map((q) => q.questionId).join(', ') || 'none';
    throw new NotWaitingError(`no open question ${named} in ${workflowId} (open: ${open})`);
  }
  const sent = await sendToRun<AnswerTaken, ResolveSignal>(
    client,
    handle,
    resolveUpdate,
    resolveSignal,
    {
      questionId: question.questionId,
      happened: options.happened,
      ...(options.result !== undefined ? { result: options.result } : {}),
      by: options.by,
    },
    options.via,
  );
  return { ...question, sent };
}

/**
 * Every running run that waits for a person, oldest first, found with no worker alive: by its search
 * attributes, and, for a run started with `searchAttributes: false` (or on a server without them), by
 * its memo among the running agent runs.
 */
export async function listWaitingRuns(
  client: Client,
): Promise<Array<{ workflowId: string; startTime: Date; waiting: WaitingState }>> {
  const runs = new Map<string, { workflowId: string; startTime: Date; waiting: WaitingState }>();
  const collect = async (query: string, waitingOnly: boolean) => {
    for await (const run of client.workflow.list({ query })) {
      const waiting = waitingFromMemo(run.memo);
      if (waitingOnly && waiting.approvals.length + waiting.questions.length === 0) continue;
      runs.set(run.workflowId, { workflowId: run.workflowId, startTime: run.startTime, waiting });
    }
  };
  // A server without the agent's search attributes refuses the first query: the memo then finds them all.
  await collect(`${WAITING_FOR_A_PERSON} AND ExecutionStatus = "Running"`, false).catch(() => undefined);
  await collect(`WorkflowType = "agentWorkflow" AND ExecutionStatus = "Running"`, true);
  return [...runs.values()].sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
}
