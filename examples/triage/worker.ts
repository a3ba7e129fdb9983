// `npm run worker`: serves the triage agent's task queue until SIGINT or SIGTERM.
// A worker of the package's own: `crash-safe-agent/worker` with the triage tools.
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { configFromEnv, dataConverterFromEnv } from '../../lib/client';
import {
  createAgentWorker,
  ensureSearchAttributes,
  keySecretFromEnv,
  loadMcpConfig,
  McpToolbox,
  redactSecrets,
} from '../../lib/worker';
import { trackerFromEnv } from '../../tracker/config';
import { triageTools } from './tools';

/**
 * Serves the task queue until SIGINT or SIGTERM, then finishes its current tasks and exits.
 * Configuration comes from the environment: `configFromEnv` (Temporal, the model, `MCP_CONFIG`),
 * `TRACKER_URL` and `TRACKER_TOKEN` for the tools, `TEMPORAL_PAYLOAD_KEY` for encrypted payloads.
 */
async function main(): Promise<void> {
  const config = configFromEnv();
  const { trackerUrl, trackerToken } = trackerFromEnv();
  // A bad MCP configuration stops the worker before it takes any task.
  const mcp = config.mcpConfig ? new McpToolbox(loadMcpConfig(config.mcpConfig)) : undefined;
  // The SDK's INFO lines (bundling, state changes) bury the worker's own; WORKER_LOG_LEVEL=INFO brings them back.
  // No log line shows a secret the worker holds (see `secrets` below).
  const level = (process.env.WORKER_LOG_LEVEL ?? 'WARN') as 'WARN';
  Runtime.install({
    logger: new DefaultLogger(level, ({ level: at, message, meta }) => {
      const details = meta && Object.keys(meta).length ? ` ${JSON.stringify(meta)}` : '';
      console.error(redactSecrets(`${new Date().toISOString()} [${at}] ${message}${details}`));
    }),
  });
  let connection: NativeConnection;
  try {
    connection = await NativeConnection.connect({ address: config.temporalAddress });
  } catch (err) {
    throw new Error(
      `cannot reach Temporal at ${config.temporalAddress} (set TEMPORAL_ADDRESS): ${(err as Error).message}`,
    );
  }
  try {
    // A run publishes what it waits for in search attributes; without them its workflow tasks would fail.
    const added = await ensureSearchAttributes(connection.operatorService, config.namespace);
    if (added.length > 0)
      console.log(`registered search attributes ${added.join(', ')} on namespace ${config.namespace}`);
    const dataConverter = dataConverterFromEnv();
    const worker = await createAgentWorker({
      connection,
      namespace: config.namespace,
      taskQueue: config.taskQueue,
      openaiBaseUrl: config.openaiBaseUrl,
      openaiApiKey: config.openaiApiKey,
      model: config.model,
      mcp,
      dataConverter,
      // The triage tools, which `npm run start` names; a run may name MCP servers' tools instead.
      tools: triageTools({ trackerUrl, trackerToken }),
      // Keys derived under AGENT_KEY_SECRET (npm run dev gives one): a reader of history cannot compute them.
      keySecret: keySecretFromEnv(),
      // Kept out of history and of every log line: the tracker's token, and the other tokens this
      // process may hold (the MCP server's and the codec server's, the payload key).
      secrets: [trackerToken, process.env.MCP_TOKEN, process.env.CODEC_TOKEN, process.env.TEMPORAL_PAYLOAD_KEY],
    });
    const servers = mcp ? `, MCP servers ${Object.keys(mcp.config.mcpServers).join(', ') || 'none'}` : '';
    const sealed = dataConverter?.payloadCodecs
      ? `, payloads encrypted with key ${process.env.TEMPORAL_PAYLOAD_KEY_ID || 'default'}`
      : '';
    console.log(
      `worker serving task queue ${config.taskQueue} on ${config.temporalAddress} ` +
        `(tracker ${trackerUrl}, model ${config.model} at ${config.openaiBaseUrl}${servers}${sealed}` +
        `${process.env.AGENT_PAYLOAD_DIR ? `, payload store ${process.env.AGENT_PAYLOAD_DIR}` : ''})`,
    );
    // Worker.run() installs the SDK's own SIGINT/SIGTERM handling: stop polling, drain, then resolve.
    await worker.run();
    console.log('worker stopped');
  } finally {
    await mcp?.close();
    await connection.close();
  }
}

main().catch((err: Error) => {
  console.error(redactSecrets(err.message));
  process.exit(1);
});
