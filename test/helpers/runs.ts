// Starting agent runs in tests, each with a fresh run id.
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { agentWorkflow } from '../../workflows/agent';
import type { AgentInput } from '../../workflows/types';

/** Starts one agent run with a fresh run id; the workflow id is derived from it. */
export async function startRun(
  client: Client,
  taskQueue: string,
  input: Partial<AgentInput> & { repo: string },
  workflowTaskTimeout?: import('@temporalio/common').Duration,
): Promise<{ handle: WorkflowHandle<typeof agentWorkflow>; runId: string }> {
  const runId = randomUUID();
  const handle = await client.workflow.start<typeof agentWorkflow>('agentWorkflow', {
    taskQueue,
    workflowId: `triage-${runId}`,
    args: [{ runId, task: 'Checkout returns 500 when a coupon is applied', ...input }],
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
