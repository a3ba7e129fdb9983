// The `callModel` activity.
import { Context } from '@temporalio/activity';
import type { ModelReply, ModelRequest } from '../workflows/types';
import { point, turnOf, type ActivityConfig } from './context';

/** One model call. Its reply goes into history, tool-call ids included, before any tool runs. */
export function callModel(config: ActivityConfig) {
  return async (req: ModelRequest): Promise<ModelReply> => {
    const turn = turnOf(req.messages);
    await point('model.started', `turn ${turn}`);
    const reply = await config.model.reply(req, Context.current().cancellationSignal);
    await point('model.returned', `turn ${turn}`);
    return reply;
  };
}
