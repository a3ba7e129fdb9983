import { key } from '../common/key';
import { parseCommandLine, runMain, UsageError } from '../common/cli';
import { existingRun, withClient } from './connect';

const USAGE = 'npm run status -- WORKFLOW_ID [--json]';

/** `npm run status`: a run's waiting approvals, open questions, and the rung that settled each call so far. */
async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(process.argv.slice(2), { json: { type: 'boolean', default: false } }, USAGE, true);
  if (positionals.length !== 1) throw new UsageError('give one workflow id', USAGE);
  const [workflowId] = positionals;
  await withClient(async ({ client }) => {
    const { handle, pending } = await existingRun(client, workflowId);
    const { status } = await handle.describe();
    if (values.json) {
      console.log(JSON.stringify({ workflowId, status: status.name, ...pending }, null, 2));
      return;
    }
    console.log(`${workflowId}: ${status.name.toLowerCase()}, run id ${pending.runId}`);
    for (const a of pending.approvals) console.log(`waiting for approval: ${a.callId} ${a.tool} ${JSON.stringify(a.args)}`);
    for (const q of pending.questions) {
      // The key lets a person check the receiver by hand: GET /idempotency/KEY, or a search for it.
      console.log(`question ${q.questionId}: did ${q.callId} ${q.tool} happen? (${q.reason}; key ${key(pending.runId, q.callId)})`);
    }
    for (const r of pending.refusedAnswers ?? []) console.log(`answer refused: ${r.questionId} by ${r.by ?? 'someone'}: ${r.why}`);
    for (const c of pending.calls) {
      console.log(`call ${c.callId} ${c.tool}: ${c.status}${c.rung ? `, settled by rung ${c.rung}` : ''}, ${c.attempts} attempt(s)`);
    }
    console.log(`questions asked so far: ${pending.questionsAsked}`);
  });
}

runMain(main);
