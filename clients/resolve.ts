// `npm run resolve`: a person's answer to "did this call happen?", by Update (taken or refused at once), or by signal with no worker alive.
import { parseCommandLine, runMain, UsageError } from '../common/cli';
import { answerQuestion } from './agent-client';
import { withDevClient } from './dev-env';
import { describeSent } from './send-to-run';

const USAGE =
  'npm run resolve -- WORKFLOW_ID QUESTION_ID|CALL_ID --happened|--not-happened [--result JSON] [--by NAME]';

/**
 * `npm run resolve`: answers the run's question whether a call happened. `--happened` settles it
 * (with `--result`, what it returned); `--not-happened` makes the run send it again. The question is
 * named by its id (`CALL_ID#N`, as `npm run status` lists it), or by its call's id when that call has
 * one open question; the answer names that question, so the run takes it for no other. The run says
 * at once whether it took the answer (a refusal exits 1 with its reason, and changes nothing); with no
 * worker alive the answer goes by signal, and the command says so.
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
  if (positionals.length !== 2) throw new UsageError('give a workflow id and a question id (or a call id)', USAGE);
  if (values.happened === values['not-happened'])
    throw new UsageError('give exactly one of --happened, --not-happened', USAGE);
  if (values.result && !values.happened) throw new UsageError('--result goes with --happened', USAGE);
  const [workflowId, named] = positionals;
  await withDevClient(async ({ client }) => {
    // From the run's memo, not a query: a person can answer while no worker is alive.
    const question = await answerQuestion(client, workflowId, named, {
      happened: values.happened!,
      result: values.result,
      by: values.by!,
    });
    console.log(
      `${question.questionId} of ${workflowId}: ${values.happened ? 'happened' : 'did not happen, will run again'}; ` +
        describeSent(question.sent),
    );
  });
}

runMain(main);
