// The `lookupCall` activity.
import { key } from '../common/key';
import { lookupTrackerCall } from '../tracker/tools';
import type { LookupResponse, ToolRequest } from '../workflows/types';
import { callContext, callTimeout, heartbeating, toolbox, trackerOf, type ActivityConfig } from './context';
import { asActivityError } from './errors';

/** Asks the receiver whether a call whose outcome is unknown happened: the tracker, or the MCP server's lookup tool. */
export function lookupCall(config: ActivityConfig) {
  return (req: ToolRequest): Promise<LookupResponse> =>
    heartbeating(async () => {
      const { callKey, signal, at } = callContext(req);
      await at('lookup.started');
      const answer =
        req.server && req.lookupTool
          ? await toolbox(config).lookup(
              req.server,
              req.lookupTool,
              { ...req.args, tool: req.tool, key: callKey },
              {
                key: key(req.runId, `${req.callId}#lookup`),
                timeoutMs: callTimeout(),
                signal,
              },
            )
          : await lookupTrackerCall(req.tool, {
              ...trackerOf(config, req.trackerUrl),
              repo: req.repo,
              key: callKey,
              byKey: req.sendKey && !req.keyExpired,
              signal,
            }).catch((err: unknown) => {
              throw asActivityError(err, true);
            });
      await at('lookup.returned');
      return answer;
    });
}
