// The agent's activities, each in a file of its own; what they share is in context.ts.
import { callModel } from './model-call';
import { listTools } from './list-tools';
import { lookupCall } from './lookup';
import { runTool } from './tool-call';
import type { ActivityConfig } from './context';

export type { ActivityConfig } from './context';

/** Builds the agent's activities around one configuration. */
export function createActivities(config: ActivityConfig) {
  return {
    listTools: listTools(config),
    callModel: callModel(config),
    runTool: runTool(config),
    lookupCall: lookupCall(config),
  };
}

/** The activities' interface, for `proxyActivities` in workflow code. */
export type AgentActivities = ReturnType<typeof createActivities>;
