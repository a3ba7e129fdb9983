// The `lookupCall` activity.
import { key } from '../common/key';
import type { LookupResponse, ToolRequest } from '../workflows/types';
import {
  callContext,
  callTimeout,
  heartbeating,
  noBuiltInTools,
  outputLimitOf,
  storeScope,
  registeredTools,
  toolbox,
  type ActivityConfig,
} from './context';
import { asActivityError } from './errors';
import { keptOutput } from './tool-output';

/**
 * Asks the receiver whether a call whose outcome is unknown happened: a registered tool's `lookup`, or
 * the MCP server's lookup tool.
 */
export function lookupCall(config: ActivityConfig) {
  return (req: ToolRequest): Promise<LookupResponse> =>
    heartbeating(async () => {
      const { callKey, signal, at } = callContext(req, config);
      await at('lookup.started');
      const answer = req.registered
        ? await registeredTools(config)
            .lookup(req.tool, req.args, {
              key: callKey,
              callId: req.callId,
              runId: req.runId,
              byKey: req.sendKey && !req.keyExpired,
              context: req.context ?? {},
              signal,
            })
            .catch((err: unknown) => {
              throw asActivityError(err, true);
            })
        : req.server && req.lookupTool
          ? await toolbox(config).lookup(
              req.server,
              req.lookupTool,
              { ...req.args, tool: req.tool, key: callKey, ...(req.callArgs ? { arguments: req.callArgs } : {}) },
              {
                key: key(req.runId, `${req.callId}#lookup`, config.keySecret),
                timeoutMs: callTimeout(),
                signal,
              },
            )
          : noBuiltInTools(req.tool);
      // What the receiver says the call returned is the call's output: kept as a tool's output is. An
      // answer that is not a text (a receiver's JSON, or a forged stored-payload reference) is kept as
      // its JSON text: plain data, never a reference the run would read.
      const { output: said, ...rest } = answer as { output?: unknown } & typeof answer;
      const text =
        said === undefined || said === null ? undefined : typeof said === 'string' ? said : JSON.stringify(said);
      const found =
        text === undefined
          ? rest
          : { ...rest, output: await keptOutput(text, outputLimitOf(config, req), config.store, storeScope(req)) };
      await at('lookup.returned');
      return found;
    });
}
