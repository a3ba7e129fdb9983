// Starting agent runs in tests, each with a fresh run id.
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { agentWorkflow } from '../../workflows/agent';
import type { AgentInput } from '../../workflows/types';
import { TRIAGE_TOOL_NAMES } from '../../examples/triage/tools';

/**
 * A triage run's input: the triage example's tools (or, with `mcpServers`, the tools of those MCP
 * servers) acting on repository `repo`, of the tracker at `trackerUrl` if not the worker's own.
 */
export type TriageRunInput = Omit<Partial<AgentInput>, 'context'> & { repo: string; trackerUrl?: string };

/** The agent's input for a {@link TriageRunInput}: the repository and tracker go in the run's context. */
export function triageInput({ repo, trackerUrl, ...rest }: TriageRunInput): Partial<AgentInput> {
  return {
    ...(rest.mcpServers?.length ? {} : { tools: TRIAGE_TOOL_NAMES }),
    ...rest,
    context: { repo, ...(trackerUrl ? { trackerUrl } : {}) },
  };
}

/** Starts one triage run with a fresh run id; the workflow id is derived from it. */
export async function startRun(
  client: Client,
  taskQueue: string,
  input: TriageRunInput,
  workflowTaskTimeout?: import('@temporalio/common').Duration,
): Promise<{ handle: WorkflowHandle<typeof agentWorkflow>; runId: string }> {
  const runId = randomUUID();
  const handle = await client.workflow.start<typeof agentWorkflow>('agentWorkflow', {
    taskQueue,
    workflowId: `triage-${runId}`,
    args: [{ runId, task: 'Checkout returns 500 when a coupon is applied', ...triageInput(input) }],
    ...(workflowTaskTimeout ? { workflowTaskTimeout } : {}),
  });
  return { handle, runId };
}

/** Polls `check` until it returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
