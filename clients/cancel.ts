// `npm run cancel`: a person asks a run to cancel; its workflow's own clean-up runs, if it has any.
import { parseCommandLine, runMain, UsageError } from '../common/cli';
import { withDevClient } from './dev-env';
import { cancelRun } from '../common/operations';

const USAGE = 'npm run cancel -- WORKFLOW_ID';

/** `npm run cancel`: requests the cancellation of a run's current execution; `npm run status` shows how it ended. */
async function main(): Promise<void> {
  const { positionals } = parseCommandLine(process.argv.slice(2), {}, USAGE, true);
  if (positionals.length !== 1) throw new UsageError('give one workflow id', USAGE);
  const [workflowId] = positionals;
  await withDevClient(async ({ client }) => {
    const { runId } = await cancelRun(client, workflowId);
    console.log(`asked ${workflowId} (run ${runId}) to cancel: npm run status shows how it ended`);
  });
}

runMain(main);
