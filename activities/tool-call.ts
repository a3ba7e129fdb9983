// The `runTool` activity.
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ToolRequest, ToolResponse } from '../workflows/types';
import { EARLIER_UNKNOWN_TYPE } from '../workflows/outcome';
import { earlierCall, earlierExecutions, hasEarlierExecutions } from './earlier-executions';
import {
  callContext,
  callTimeout,
  heartbeating,
  noBuiltInTools,
  oneTryStartedAgain,
  outputLimitOf,
  storeScope,
  registeredTools,
  retrying,
  toolbox,
  type ActivityConfig,
} from './context';
import { asActivityError } from './errors';
import { payloadDecoder } from '../common/history-events';
import { keptOutput } from './tool-output';
import { callDigest } from '../workflows/digest';
import { refused } from './errors';

/**
 * One tool call, carrying `key(runId, callId)`: to a tool registered on the worker (`defineTool`), or
 * through an MCP server.
 */
export function runTool(config: ActivityConfig) {
  return (req: ToolRequest): Promise<ToolResponse> =>
    heartbeating(async () => {
      const { callKey, signal, at } = callContext(req, config);
      // A tool the worker's registry says needs approval runs only with the approval of exactly these arguments.
      if (req.registered && registeredTools(config).get(req.tool).spec.needsApproval) {
        if (req.approved !== callDigest(req.tool, req.args))
          throw refused(
            `${req.tool} needs a person's approval of exactly these arguments, and this call comes without it; nothing was sent`,
            'NotApproved',
          );
      }
      await at('tool.started');
      // The server started again a call allowed one try (an operator paused it mid-attempt and
      // unpaused it): the attempt before may have acted. Nothing is sent; the workflow's ladder settles it.
      if (oneTryStartedAgain())
        throw ApplicationFailure.create({
          message: `${req.tool} ${req.callId} was allowed one try, and the server started attempt ${Context.current().info.attempt} (an operator's pause?): the attempt before may have acted, so it is not sent again`,
          type: EARLIER_UNKNOWN_TYPE,
          nonRetryable: true,
        });
      const before = await earlierAttempts(req);
      if (before?.kind === 'done') {
        await at('tool.returned');
        return { ...before.response, fromRunId: before.runId };
      }
      if (before?.kind === 'unknown' && !sendAgain(req.earlier!, before.sentAt))
        // Not retried by Temporal: the workflow reads it as an unknown outcome, sent at `sentAt`.
        throw ApplicationFailure.create({
          message: `an earlier execution of this run (${before.runId}) sent ${req.tool} ${req.callId} and never learned whether it happened`,
          type: EARLIER_UNKNOWN_TYPE,
          nonRetryable: true,
          details: [{ sentAt: before.sentAt }],
        });
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
              maxOutputBytes: outputLimitOf(config, req).maxOutputBytes,
            })
          : noBuiltInTools(req.tool);
      // A large output goes to the store before the point, so a kill after it finds it stored.
      const output = await keptOutput(result.output, outputLimitOf(config, req), config.store, storeScope(req));
      await at('tool.returned');
      return {
        output,
        replayed: result.replayed,
        attempt: Context.current().info.attempt,
        ...(result.retentionMs ? { keyRetentionMs: result.retentionMs } : {}),
      };
    });
}

/**
 * Whether a call an earlier execution sent with its outcome unknown may simply be sent again: a repeat
 * is harmless by the tool's nature, or its key, first sent at `sentAt`, is still held.
 */
export function sendAgain(earlier: NonNullable<ToolRequest['earlier']>, sentAt: number): boolean {
  if (!earlier.harmless) return false;
  return earlier.keyLeftMs === undefined || Date.now() - sentAt < earlier.keyLeftMs;
}

/** What earlier executions of the run know of this call, when the workflow asks (`ToolRequest.earlier`). */
async function earlierAttempts(req: ToolRequest) {
  if (!req.earlier || !hasEarlierExecutions(req.earlier.execution)) return undefined;
  const { client, info } = Context.current();
  const run = info.workflowExecution;
  if (!run) return undefined;
  const earlier = await earlierExecutions(client, run.workflowId, run.runId);
  return earlierCall(earlier, req, payloadDecoder(client));
}
