// The run fails at each kill, and its retry policy starts it over.
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { FAIL_FOR_RETRY_HEADER, FAIL_FOR_RETRY_SIGNAL } from '../../common/crash-points';
import { clientWithStartHeader } from '../engine/start-headers';
import type { Fault } from './fault';

/**
 * A client like `client` whose runs the engine may fail for their retry policy (they carry the
 * fail-for-retry header, which the plugin looks for).
 */
export function clientMarkingRetries(client: Client): Client {
  return clientWithStartHeader(client, FAIL_FOR_RETRY_HEADER, defaultPayloadConverter.toPayload(true));
}

/**
 * At each kill, once the worker is dead, the run fails: the engine signals it, and the crash-sweep
 * plugin's workflow interceptor throws a retryable `ApplicationFailure` in its next workflow task (in
 * the fresh worker); its retry policy starts it over under the same workflow id, with the same input.
 * The suite must start the row's runs with a retry policy; they are started with a client that marks
 * them for the interceptor.
 */
export const retry: Fault = {
  name: 'retry',
  kind: 'retry',
  target: 'run',
  summary: 'the run fails, and its retry policy starts it over with the same input',
  inWorker: { operated: 'retry' },
  startClient: clientMarkingRetries,
  async atKill({ client, workflowId, reason }) {
    await client.workflow.getHandle(workflowId).signal(FAIL_FOR_RETRY_SIGNAL, reason);
    return 'failed for its retry policy';
  },
};
