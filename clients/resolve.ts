import { parseCommandLine, runMain, UsageError } from '../common/cli';
import { resolveSignal } from '../workflows/signals';
import { existingRun, withClient } from './connect';

const USAGE = 'npm run resolve -- WORKFLOW_ID CALL_ID --happened|--not-happened [--result JSON] [--by NAME]';

/**
 * `npm run resolve`: answers the run's question whether a call happened. `--happened` settles it
 * (with `--result`, what it returned); `--not-happened` makes the run send it again.
 */
async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(
    process.argv.slice(2),
    {
      happened: { type: 'boolean', default: false },
      'not-happened': { type: 'boolean', default: false },
      result: { type: 'string' },
      by: { type: 'string', default: process.env.USER ?? 'operator' },
    },
    USAGE,
    true,
  );
  if (positionals.length !== 2) throw new UsageError('give a workflow id and a call id', USAGE);
  if (values.happened === values['not-happened']) throw new UsageError('give exactly one of --happened, --not-happened', USAGE);
  if (values.result && !values.happened) throw new UsageError('--result goes with --happened', USAGE);
  const [workflowId, callId] = positionals;
  await withClient(async ({ client }) => {
    const { handle, pending } = await existingRun(client, workflowId);
    if (!pending.questions.some((q) => q.callId === callId)) {
      const open = pending.questions.map((q) => q.callId).join(', ') || 'none';
      throw new Error(`no open question about call ${callId} of ${workflowId} (open: ${open})`);
    }
    await handle.signal(resolveSignal, { callId, happened: values.happened!, result: values.result, by: values.by });
    console.log(`${callId} of ${workflowId}: ${values.happened ? 'happened' : 'did not happen, will run again'}`);
  });
}

runMain(main);
