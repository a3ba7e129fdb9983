// `npm run reset`: a person resets a run to an earlier workflow task, with the reason recorded.
import { parseCommandLine, runMain, UsageError } from '../common/cli';
import { withDevClient } from './dev-env';
import { parseResetTarget, ResetTargetError, resetRun } from '../common/operations';

const USAGE = 'npm run reset -- WORKFLOW_ID [--to last-task|first-task|EVENT_ID] [--reason TEXT]';

/**
 * `npm run reset`: a thin wrapper over the service's ResetWorkflowExecution, as `temporal workflow
 * reset` is. A new run of the same workflow id keeps what happened before the target's workflow task
 * and runs the rest again (the agent's run id, in its input, stays the same). Default: the last
 * workflow task. The reason goes in the new run's history, where `npm run status` reads it.
 */
async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(
    process.argv.slice(2),
    {
      to: { type: 'string', default: 'last-task' },
      reason: { type: 'string', default: `reset by ${process.env.USER ?? 'an operator'}` },
    },
    USAGE,
    true,
  );
  if (positionals.length !== 1) throw new UsageError('give one workflow id', USAGE);
  let to;
  try {
    to = parseResetTarget(values.to!);
  } catch (err) {
    throw new UsageError((err as Error).message, USAGE);
  }
  const [workflowId] = positionals;
  await withDevClient(async ({ client }) => {
    try {
      const done = await resetRun(client, workflowId, { to, reason: values.reason! });
      console.log(
        `reset ${workflowId} to event ${done.eventId}: run ${done.fromRunId} is over, run ${done.runId} goes on from there`,
      );
    } catch (err) {
      if (err instanceof ResetTargetError) throw new UsageError(err.message, USAGE);
      throw err;
    }
  });
}

runMain(main);
