// The `runTool` activity.
import { Context } from '@temporalio/activity';
import type { ToolRequest, ToolResponse } from '../workflows/types';
import {
  callContext,
  callTimeout,
  heartbeating,
  noBuiltInTools,
  registeredTools,
  retrying,
  toolbox,
  type ActivityConfig,
} from './context';
import { asActivityError } from './errors';

/**
 * One tool call, carrying `key(runId, callId)`: to a tool registered on the worker (`defineTool`), or
 * through an MCP server.
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
              // Called once the receiver has answered, so after the effect: a value that is not a
              // retention is reported and left out (the run keeps its own), never thrown, which would
              // fail a call that happened.
              keysKeptFor: (ms) => {
                if (typeof ms === 'number' && Number.isFinite(ms) && ms > 0) keptForMs = ms;
                else
                  Context.current().log.warn(
                    `${req.tool} ${req.callId}: keysKeptFor(${String(ms)}) ignored: give a positive number of ms; the run keeps its own key retention`,
                  );
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
          : noBuiltInTools(req.tool);
      await at('tool.returned');
      return {
        output: result.output,
        replayed: result.replayed,
        attempt: Context.current().info.attempt,
        ...(result.retentionMs ? { keyRetentionMs: result.retentionMs } : {}),
      };
    });
}
