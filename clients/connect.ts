// How every client connects to Temporal: the address, the payload codec, and one clear line when it cannot.
import { Client, WorkflowNotFoundError, type Connection, type WorkflowHandle } from '@temporalio/client';
import { configFromEnv } from '../common/config';
import { connectTemporal } from '../common/temporal-connection';
import { dataConverterFromEnv } from '../store/data-converter';
import type { agentWorkflow } from '../workflows/agent';
import { WAITING_MEMO } from '../workflows/signals';
import type { WaitingState } from '../workflows/types';

export { ServerUnreachableError } from '../common/temporal-connection';

/** Thrown when a command names a workflow the server does not know. */
export class UnknownWorkflowError extends Error {
  constructor(readonly workflowId: string) {
    super(`no agent run with workflow id ${workflowId}`);
    this.name = 'UnknownWorkflowError';
  }
}

/** How a client connects beyond the environment's address and namespace. */
export interface ConnectOptions {
  /** The payload store the workers keep large payloads in (default `AGENT_PAYLOAD_DIR`, else none). */
  payloadDir?: string;
}

/** Connects a client, failing fast with one clear line when the server is not there. */
export async function connectClient(
  options: ConnectOptions = {},
): Promise<{ client: Client; connection: Connection; taskQueue: string }> {
  const config = configFromEnv();
  const connection = await connectTemporal(config.temporalAddress, { connectTimeout: '5s' });
  // With TEMPORAL_PAYLOAD_KEY set, what the client sends is sealed and what it reads is opened; with a
  // payload store, what the workers stored outside history is read back.
  const env = { ...process.env, AGENT_PAYLOAD_DIR: options.payloadDir ?? process.env.AGENT_PAYLOAD_DIR };
  const client = new Client({ connection, namespace: config.namespace, dataConverter: dataConverterFromEnv(env) });
  return { client, connection, taskQueue: config.taskQueue };
}

/** What a run waits for, as its memo says (nothing, for a run that has not published yet). */
export function waitingFromMemo(memo: Record<string, unknown> | undefined): WaitingState {
  return (memo?.[WAITING_MEMO] as WaitingState | undefined) ?? { approvals: [], questions: [] };
}

/**
 * A handle on an existing run, with what it waits for as its memo says: read from the server alone,
 * so it answers while no worker is alive (a query would wait for one). Fails clearly for an unknown
 * workflow id.
 */
export async function waitingRun(
  client: Client,
  workflowId: string,
): Promise<{ handle: WorkflowHandle<typeof agentWorkflow>; waiting: WaitingState; status: string }> {
  const handle = client.workflow.getHandle<typeof agentWorkflow>(workflowId);
  try {
    const { memo, status } = await handle.describe();
    return { handle, waiting: waitingFromMemo(memo), status: status.name };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new UnknownWorkflowError(workflowId);
    throw err;
  }
}

/** Runs a client command with a connection that is always closed. */
export async function withClient<T>(
  fn: (c: { client: Client; taskQueue: string }) => Promise<T>,
  options: ConnectOptions = {},
): Promise<T> {
  const { client, connection, taskQueue } = await connectClient(options);
  try {
    return await fn({ client, taskQueue });
  } finally {
    await connection.close();
  }
}
