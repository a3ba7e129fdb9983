// The agent's worker process under the sweep: the agent worker with the crash hook.
import { readFileSync } from 'node:fs';
import { McpToolbox } from '../activities/mcp-toolbox';
import { runMain } from '../common/cli';
import { configFromEnv } from '../common/config';
import { dataConverterFromEnv } from '../store/data-converter';
import { loadMcpConfig } from '../activities/mcp-config';
import { trackerFromEnv } from '../tracker/config';
import { triageTools } from '../examples/triage/tools';
import { openAiModel } from '../activities/model';
import { AGENT_POINTS, createAgentWorker } from '../workers/create-worker';
import { crashSweepPlugin } from '../sweep/plugin';
import { turnActivities } from './turn-activity';
import { runCrashWorker } from '../sweep/worker/crash-worker';

/**
 * The agent's worker process under the sweep (see `runCrashWorker` for what every generation does).
 * Environment: as `npm run worker` (the triage example's), plus the engine's variables and `WORKFLOW_BUNDLE` (optional path
 * of a pre-built workflow bundle).
 */
async function main(): Promise<void> {
  const config = configFromEnv();
  const { trackerUrl, trackerToken } = trackerFromEnv();
  const bundlePath = process.env.WORKFLOW_BUNDLE;
  // One model for the loop's activities and the design's whole-turn activity.
  const model = openAiModel({ baseURL: config.openaiBaseUrl, apiKey: config.openaiApiKey, model: config.model });
  await runCrashWorker((settings) =>
    createAgentWorker({
      // The model key, kept out of history and logs with the worker's other secrets.
      openaiApiKey: config.openaiApiKey,
      model: config.model,
      modelProvider: model,
      ...settings,
      workflowBundle: bundlePath ? { code: readFileSync(bundlePath, 'utf8') } : undefined,
      mcp: config.mcpConfig ? new McpToolbox(loadMcpConfig(config.mcpConfig)) : undefined,
      // The triage example's tools, which the agent loop's rows and the designs name, and the
      // whole-turn activity of the "save once per turn" design.
      // Each scenario's run names the sweep's own tracker for its row in its context.
      tools: triageTools({ trackerUrl, trackerToken, otherTrackers: 'any' }),
      secrets: [trackerToken],
      // The payload store the engine names (AGENT_PAYLOAD_DIR): long runs keep large payloads there.
      dataConverter: dataConverterFromEnv(),
      activities: turnActivities({ model, trackerUrl, trackerToken }),
      // The crash sweep's points of the loop: its workflow decisions (the activities mark their own).
      plugins: [crashSweepPlugin(AGENT_POINTS)],
    }),
  );
}

runMain(main);
