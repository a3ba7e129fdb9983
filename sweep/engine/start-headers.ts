// A client whose every workflow start carries a header: how the engine and a suite tell the crash-sweep
// plugin, in the run's own worker, what the sweep does to the run (its activity caps, a failure for a retry).
import { Client, type WorkflowClientInterceptor } from '@temporalio/client';
import type { Payload } from '@temporalio/common';

/** Adds the header to every workflow a client starts, however it starts it. */
function addHeader(name: string, value: Payload): WorkflowClientInterceptor {
  return {
    startWithDetails: (input, next) => next({ ...input, headers: { ...input.headers, [name]: value } }),
    signalWithStart: (input, next) => next({ ...input, headers: { ...input.headers, [name]: value } }),
    startUpdateWithStart: (input, next) =>
      next({ ...input, workflowStartHeaders: { ...input.workflowStartHeaders, [name]: value } }),
  };
}

const made = new WeakMap<Client, Map<string, Client>>();

/**
 * A client on `client`'s connection, namespace and data converter whose every workflow start carries
 * the header `name` with `value`. Made once per client, header and value.
 */
export function clientWithStartHeader(client: Client, name: string, value: Payload): Client {
  let byHeader = made.get(client);
  if (!byHeader) made.set(client, (byHeader = new Map()));
  const id = `${name} ${Buffer.from(value.data ?? []).toString('base64')}`;
  let headed = byHeader.get(id);
  if (!headed) {
    headed = new Client({
      connection: client.connection,
      namespace: client.options.namespace,
      dataConverter: client.options.dataConverter,
      interceptors: { workflow: [addHeader(name, value)] },
    });
    byHeader.set(id, headed);
  }
  return headed;
}
