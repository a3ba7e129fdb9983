// The `runTool` activity.
import { Context } from '@temporalio/activity';
import { callTrackerTool } from '../tracker/tools';
import type { ToolRequest, ToolResponse } from '../workflows/types';
import { callContext, callTimeout, heartbeating, retrying, toolbox, trackerOf, type ActivityConfig } from './context';
import { asActivityError } from './errors';

/** One tool call, carrying `key(runId, callId)`: to the tracker itself, or through an MCP server. */
export function runTool(config: ActivityConfig) {
  return (req: ToolRequest): Promise<ToolResponse> =>
    heartbeating(async () => {
      const { callKey, signal, at } = callContext(req);
      await at('tool.started');
      const result = req.server
        ? await toolbox(config).callTool(req.server, req.tool, req.args, {
            key: callKey,
            timeoutMs: callTimeout(),
            signal,
            retrying: retrying(),
            errorMayHideEffect: req.errorMayHideEffect,
          })
        : await callTrackerTool(req.tool, req.args, {
            ...trackerOf(config, req.trackerUrl),
            repo: req.repo,
            key: callKey,
            sendKey: req.sendKey,
            signal,
            onReply: () => at('tracker.accepted'),
          }).catch((err: unknown) => {
            throw asActivityError(err, retrying());
          });
      await at('tool.returned');
      return {
        output: result.output,
        replayed: result.replayed,
        attempt: Context.current().info.attempt,
        ...(result.retentionMs ? { keyRetentionMs: result.retentionMs } : {}),
      };
    });
}
