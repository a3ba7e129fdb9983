// The AI SDK example's sweep config, the sample's way or with crash-safe tools: the plugin, the model
// endpoint and the mail service, how a run starts, and how damage is counted from their records.
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { defineSweep, type SweepConfig } from '../../sweep';
import { createActivities } from './activities';
import { startMailService, type MailService } from './mail-service';
import { startModelEndpoint, type ModelEndpoint } from './model-endpoint';

/**
 * The example's config. The plugin is made where the config loads: in the sweep's process (which only
 * bundles the workflows, before `setup` has started the endpoint) and in each worker process (where
 * `MODEL_URL` is set).
 */
export function aiSdkSweep(crashSafe: boolean): SweepConfig {
  let mail: MailService | undefined;
  let model: ModelEndpoint | undefined;
  const modelProvider = createOpenAICompatible({
    name: 'weather',
    baseURL: process.env.MODEL_URL ?? 'http://127.0.0.1:9/v1',
  });
  return defineSweep({
    name: crashSafe ? 'ai-sdk-crash-safe' : 'ai-sdk-sample',
    label: crashSafe ? 'AI SDK agent, crash-safe tools' : "AI SDK agent, the sample's way",
    workflowsPath: require.resolve('./workflows'),
    plugins: [new AiSdkPlugin({ modelProvider })],
    activities: () => createActivities(process.env.MAIL_URL!, { keys: crashSafe }),
    async setup() {
      mail = await startMailService();
      model = await startModelEndpoint();
      return { env: { MAIL_URL: mail.url, MODEL_URL: model.url } };
    },
    async teardown() {
      await mail?.close();
      await model?.close();
    },
    start: ({ client, taskQueue, workflowId, workflowTaskTimeout }) =>
      client.workflow.start(crashSafe ? 'crashSafeToolsAgent' : 'toolsAgent', {
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
