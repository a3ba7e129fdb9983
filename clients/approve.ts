// `npm run approve`: a person's decision on a call that waits for approval, by Update (taken or refused at once), or by signal with no worker alive.
import { parseCommandLine, runMain, UsageError } from '../common/cli';
import { approveCall, denyCall } from './agent-client';
import { withDevClient } from './dev-env';
import { describeSent } from './send-to-run';

const USAGE = 'npm run approve -- WORKFLOW_ID CALL_ID [--deny --reason TEXT] [--by NAME] [--digest sha256:...]';

/**
 * `npm run approve`: approves (or with `--deny`, denies) one call that waits for approval. The decision
 * names the digest of the call's tool and arguments as the run published them, so it approves that
 * call with those arguments and no other; `--digest` checks them against the digest a person was shown.
 * The run says at once whether it took the decision (a refusal exits 1 with its reason, and changes
 * nothing); with no worker alive the decision goes by signal, and the command says so.
 */
async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(
    process.argv.slice(2),
    {
      deny: { type: 'boolean', default: false },
      reason: { type: 'string' },
      by: { type: 'string', default: process.env.USER ?? 'operator' },
      digest: { type: 'string' },
    },
    USAGE,
    true,
  );
  if (positionals.length !== 2) throw new UsageError('give a workflow id and a call id', USAGE);
  if (values.reason && !values.deny) throw new UsageError('--reason goes with --deny', USAGE);
  const [workflowId, callId] = positionals;
  await withDevClient(async ({ client }) => {
    const decide = values.deny ? denyCall : approveCall;
    const item = await decide(client, workflowId, callId, {
      by: values.by!,
      digest: values.digest,
      reason: values.reason,
    });
    console.log(
      `${values.deny ? 'denied' : 'approved'} ${callId} of ${workflowId}${item.digest ? ` (${item.digest})` : ''}; ` +
        describeSent(item.sent),
    );
  });
}

runMain(main);
