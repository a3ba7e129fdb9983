// The `callModel` activity.
import { Context } from '@temporalio/activity';
import type { ModelCallRequest, ModelReply, ModelRequest } from '../workflows/types';
import { earlierExecutions, earlierReplies, hasEarlierExecutions, replyFromEarlier } from './earlier-executions';
import { payloadDecoder } from '../common/history-events';
import { point, turnOf, type ActivityConfig } from './context';

/**
 * One model call. Its reply goes into history, tool-call ids included, before any tool runs. In an
 * execution that a reset or a workflow retry started, the reply an earlier execution got to the same
 * request is taken from that execution's history instead: its tool calls keep their ids, so their
 * keys, and the model is not paid again for an answer the run already acted on.
 */
export function callModel(config: ActivityConfig) {
  return async (req: ModelCallRequest): Promise<ModelReply> => {
    const { execution, ...request } = req;
    const turn = turnOf(request.messages);
    await point('model.started', `turn ${turn}`);
    const earlier = execution && hasEarlierExecutions(execution) ? await earlierReplyTo(request) : undefined;
    const reply = earlier
      ? { ...earlier.reply, fromRunId: earlier.runId }
      : await config.model.reply(request, Context.current().cancellationSignal);
    await point('model.returned', `turn ${turn}`);
    return reply;
  };
}

/** The reply an earlier execution of this activity's run got to `request`, if one did. */
async function earlierReplyTo(request: ModelRequest) {
  const { client, info } = Context.current();
  const run = info.workflowExecution;
  if (!run) return undefined;
  const earlier = await earlierExecutions(client, run.workflowId, run.runId);
  return replyFromEarlier(await earlierReplies(earlier, payloadDecoder(client)), request);
}
