// `npm run worker`: serves the agent's task queue until SIGINT or SIGTERM.
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { runMain } from '../common/cli';
import { redactSecrets, registerSecrets } from '../common/secrets';
import { McpToolbox } from '../activities/mcp-toolbox';
import { configFromEnv } from '../common/config';
import { dataConverterFromEnv } from '../common/payload-codec';
import { loadMcpConfig } from '../mcp/config';
import { triageTools } from '../examples/triage/tools';
import { createAgentWorker } from './create-worker';
import { ensureSearchAttributes } from './search-attributes';

/**
 * `npm run worker`: serves the agent's task queue until SIGINT or SIGTERM, then finishes its current
 * tasks and exits. Configuration comes from the environment (see `common/config.ts`).
 */
async function main(): Promise<void> {
  const config = configFromEnv();
  // A bad MCP configuration stops the worker before it takes any task.
  const mcp = config.mcpConfig ? new McpToolbox(loadMcpConfig(config.mcpConfig)) : undefined;
  // The SDK's INFO lines (bundling, state changes) bury the worker's own; WORKER_LOG_LEVEL=INFO brings them back.
  // Secrets of this process never reach a log line either: those the worker does not hold itself
  // (createAgentWorker registers its tracker token, model key and MCP secrets).
  registerSecrets(process.env.MCP_TOKEN, process.env.CODEC_TOKEN, process.env.TEMPORAL_PAYLOAD_KEY);
  const level = (process.env.WORKER_LOG_LEVEL ?? 'WARN') as 'WARN';
  Runtime.install({
    logger: new DefaultLogger(level, ({ level: at, message, meta }) => {
      console.error(
        redactSecrets(
          `${new Date().toISOString()} [${at}] ${message}${meta && Object.keys(meta).length ? ` ${JSON.stringify(meta)}` : ''}`,
        ),
      );
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
    // The triage example's tools, which `npm run start` names; a run may name MCP servers' tools instead.
    const tools = triageTools({ trackerUrl: config.trackerUrl, trackerToken: config.trackerToken });
    const worker = await createAgentWorker({
      connection,
      ...config,
      mcp,
      dataConverter,
      tools,
      secrets: [config.trackerToken],
    });
    const servers = mcp ? `, MCP servers ${Object.keys(mcp.config.mcpServers).join(', ') || 'none'}` : '';
    console.log(
      `worker serving task queue ${config.taskQueue} on ${config.temporalAddress} ` +
        `(tracker ${config.trackerUrl}, model ${config.model} at ${config.openaiBaseUrl}${servers}` +
        `${dataConverter ? `, payloads encrypted with key ${process.env.TEMPORAL_PAYLOAD_KEY_ID || 'default'}` : ''})`,
    );
    // Worker.run() installs the SDK's own SIGINT/SIGTERM handling: stop polling, drain, then resolve.
    await worker.run();
    console.log('worker stopped');
  } finally {
    await mcp?.close();
    await connection.close();
  }
}

runMain(main);
