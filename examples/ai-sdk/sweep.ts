// The AI SDK example's sweep config, in each of its shapes: the plugin, the model endpoint, the mail
// service (and, for the MCP shape, the MCP server in front of it), how a run starts, and how damage is
// counted from their records.
import { createMCPClient } from '@ai-sdk/mcp';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { defineSweep, type SweepConfig } from '../../sweep';
import { createActivities } from './activities';
import { startMailService, type MailService } from './mail-service';
import { startMcpMailServer, type McpMailServer } from './mcp-mail-server';
import { startModelEndpoint, type ModelEndpoint } from './model-endpoint';

/** The agent's shape: the sample's `toolsAgent`, the same with `toolActivities`, or its `mcpAgent`. */
export type AgentShape = 'sample' | 'crash-safe' | 'mcp';

const SHAPES = {
  sample: { name: 'ai-sdk-sample', label: "AI SDK agent, the sample's way", workflow: 'toolsAgent' },
  'crash-safe': { name: 'ai-sdk-crash-safe', label: 'AI SDK agent, crash-safe tools', workflow: 'crashSafeToolsAgent' },
  mcp: { name: 'ai-sdk-mcp', label: 'AI SDK agent, mail over MCP', workflow: 'mcpAgent' },
} as const;

/**
 * The example's config. The plugin is made where the config loads: in the sweep's process (which only
 * bundles the workflows, before `setup` has started the endpoints) and in each worker process (where
 * `MODEL_URL` and `MCP_URL` are set).
 */
export function aiSdkSweep(shape: AgentShape): SweepConfig {
  let mail: MailService | undefined;
  let model: ModelEndpoint | undefined;
  let mcp: McpMailServer | undefined;
  const modelProvider = createOpenAICompatible({
    name: 'weather',
    baseURL: process.env.MODEL_URL ?? 'http://127.0.0.1:9/v1',
  });
  const { name, label, workflow } = SHAPES[shape];
  return defineSweep({
    name,
    label,
    workflowsPath: require.resolve('./workflows'),
    plugins: [
      new AiSdkPlugin({
        modelProvider,
        // The MCP shape's server, as the plugin's activities reach it (kept per worker process).
        mcpClientFactories: {
          mail: () =>
            createMCPClient({ transport: { type: 'http', url: process.env.MCP_URL ?? 'http://127.0.0.1:9/mcp' } }),
        },
      }),
    ],
    activities: () => createActivities(process.env.MAIL_URL!, { keys: shape === 'crash-safe' }),
    async setup() {
      mail = await startMailService();
      model = await startModelEndpoint();
      mcp = await startMcpMailServer(mail.url);
      return { env: { MAIL_URL: mail.url, MODEL_URL: model.url, MCP_URL: mcp.url } };
    },
    async teardown() {
      await mcp?.close();
      await mail?.close();
      await model?.close();
    },
    start: ({ client, taskQueue, workflowId, workflowTaskTimeout }) =>
      client.workflow.start(workflow, {
        taskQueue,
        workflowId,
        workflowTaskTimeout,
        args: [`Mail ada@example.com the weather in Paris (run ${workflowId})`],
      }),
    check: ({ workflowId }) => {
      const sent = mail!.sentFor(workflowId);
      return { dups: Math.max(0, sent - 1), missing: sent === 0 ? 1 : 0, calls: model!.calls(workflowId) };
    },
  });
}
