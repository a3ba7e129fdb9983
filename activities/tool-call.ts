// The `runTool` activity.
import { Context } from '@temporalio/activity';
import { callTrackerTool } from '../tracker/tools';
import type { ToolRequest, ToolResponse } from '../workflows/types';
import {
  callContext,
  callTimeout,
  heartbeating,
  registeredTools,
  repoOf,
  retrying,
  toolbox,
  trackerOf,
  type ActivityConfig,
} from './context';
import { asActivityError } from './errors';

/**
 * One tool call, carrying `key(runId, callId)`: to a tool registered on the worker (`defineTool`),
 * through an MCP server, or to the tracker itself.
 */
export function runTool(config: ActivityConfig) {
  return (req: ToolRequest): Promise<ToolResponse> =>
    heartbeating(async () => {
      const { callKey, signal, at } = callContext(req);
      await at('tool.started');
      let keptForMs: number | undefined;
      const result = req.registered
        ? await registeredTools(config)
            .run(req.tool, req.args, {
              key: callKey,
              runId: req.runId,
              callId: req.callId,
              attempt: Context.current().info.attempt,
              signal,
              context: req.context ?? {},
              point: at,
              keysKeptFor: (ms) => {
                if (!Number.isFinite(ms) || ms <= 0)
                  throw new Error(`keysKeptFor(${ms}): give a positive number of ms`);
                keptForMs = ms;
              },
            })
            .then((output) => ({ output, replayed: false, retentionMs: keptForMs }))
            .catch((err: unknown) => {
              throw asActivityError(err, retrying());
            })
        : req.server
          ? await toolbox(config).callTool(req.server, req.tool, req.args, {
              key: callKey,
              timeoutMs: callTimeout(),
              signal,
              retrying: retrying(),
              errorMayHideEffect: req.errorMayHideEffect,
            })
          : await callTrackerTool(req.tool, req.args, {
              ...trackerOf(config, req.trackerUrl),
              repo: repoOf(req),
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
