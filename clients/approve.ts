// `npm run approve`: a person's decision on a call that waits for approval, sent by signal.
import { parseCommandLine, runMain, UsageError } from '../common/cli';
import { approveSignal } from '../workflows/signals';
import { waitingRun, withClient } from './connect';

const USAGE = 'npm run approve -- WORKFLOW_ID CALL_ID [--deny --reason TEXT] [--by NAME]';

/** `npm run approve`: approves (or with `--deny`, denies) one call that waits for approval. */
async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(
    process.argv.slice(2),
    {
      deny: { type: 'boolean', default: false },
      reason: { type: 'string' },
      by: { type: 'string', default: process.env.USER ?? 'operator' },
    },
    USAGE,
    true,
  );
  if (positionals.length !== 2) throw new UsageError('give a workflow id and a call id', USAGE);
  if (values.reason && !values.deny) throw new UsageError('--reason goes with --deny', USAGE);
  const [workflowId, callId] = positionals;
  await withClient(async ({ client }) => {
    // From the run's memo, not a query: a person can decide while no worker is alive.
    const { handle, waiting } = await waitingRun(client, workflowId);
    if (!waiting.approvals.some((a) => a.callId === callId)) {
      const names = waiting.approvals.map((a) => a.callId).join(', ') || 'none';
      throw new Error(`call ${callId} of ${workflowId} is not waiting for approval (waiting: ${names})`);
    }
    await handle.signal(approveSignal, { callId, approved: !values.deny, by: values.by!, reason: values.reason });
    console.log(`${values.deny ? 'denied' : 'approved'} ${callId} of ${workflowId}`);
  });
}

runMain(main);
