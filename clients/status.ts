// `npm run status`: what a run waits for (from a worker, or from its memo with none alive), or every waiting run.
import type { Client } from '@temporalio/client';
import { key } from '../common/key';
import { parseCommandLine, runMain, UsageError } from '../common/cli';
import { listWaitingRuns } from './agent-client';
import { describeReset, describeRetry, resetsOf, retryOf } from '../common/operations';
import { describeTaken, takenFromEarlier } from './taken-from-earlier';
import { payloadDecoder } from '../common/history-events';
import { waitingRun } from './connect';
import { pendingFromWorker, WORKER_WAIT_MS } from './send-to-run';
import { clientKeySecret, withDevClient } from './dev-env';

const USAGE = 'npm run status -- [WORKFLOW_ID] [--json]';

/** `npm run status` with no workflow id: every run that waits for a person, and what it waits for. */
async function printWaitingRuns(client: Client, json: boolean): Promise<void> {
  const runs = await listWaitingRuns(client);
  if (json) {
    console.log(JSON.stringify(runs, null, 2));
    return;
  }
  if (runs.length === 0) {
    console.log('no run waits for a person');
    return;
  }
  console.log(`${runs.length} run(s) wait for a person (oldest first):`);
  for (const { workflowId, waiting } of runs) {
    const waits = [
      ...waiting.approvals.map((a) => `approval of ${a.callId} ${a.tool}`),
      ...waiting.questions.map((q) => `answer to ${q.questionId ?? q.callId} (did ${q.callId} ${q.tool} happen?)`),
    ];
    console.log(`${workflowId}: ${waits.join('; ')}`);
  }
}

/**
 * `npm run status`: a run's waiting approvals, open questions, and the rung that settled each call so
 * far; with no workflow id, the runs that wait for a person. What the run waits for comes from its memo, which the server answers alone; the calls come from
 * a query, which needs a worker: with none alive, status says so and shows what the memo has.
 */
async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(
    process.argv.slice(2),
    { json: { type: 'boolean', default: false } },
    USAGE,
    true,
  );
  if (positionals.length > 1)
    throw new UsageError('give one workflow id, or none to list the runs that wait for a person', USAGE);
  const [workflowId] = positionals;
  await withDevClient(async ({ client }) => {
    if (workflowId === undefined) return printWaitingRuns(client, values.json!);
    const { handle, waiting, status } = await waitingRun(client, workflowId);
    const pending = await pendingFromWorker(client, handle);
    const events = (await handle.fetchHistory()).events ?? [];
    if (values.json) {
      const resets = resetsOf(events);
      const retry = retryOf(events);
      const taken = await takenFromEarlier(events, payloadDecoder(client));
      console.log(
        JSON.stringify(
          { workflowId, status, workerAnswered: pending !== null, resets, retry, taken, ...(pending ?? waiting) },
          null,
          2,
        ),
      );
      return;
    }
    console.log(`${workflowId}: ${status.toLowerCase()}${pending ? `, run id ${pending.runId}` : ''}`);
    // A run its retry policy started over, and a run a person reset: from which execution, and what it carried over.
    const retry = retryOf(events);
    if (retry) console.log(describeRetry(retry));
    for (const r of resetsOf(events)) console.log(describeReset(r));
    for (const t of await takenFromEarlier(events, payloadDecoder(client))) console.log(describeTaken(t));
    if (!pending)
      console.log(`no worker answered within ${WORKER_WAIT_MS / 1000} s: what the run waits for, from its memo`);
    const { approvals, questions } = pending ?? waiting;
    for (const a of approvals)
      console.log(
        `waiting for approval: ${a.callId} ${a.tool} ${JSON.stringify(a.args)}${a.digest ? ` (${a.digest})` : ''}`,
      );
    for (const q of questions) {
      // The key lets a person check the receiver by hand: GET /idempotency/KEY, or a search for it.
      const callKey = pending ? `; key ${key(pending.runId, q.callId, clientKeySecret())}` : '';
      console.log(`question ${q.questionId}: did ${q.callId} ${q.tool} happen? (${q.reason}${callKey})`);
    }
    if (!pending) return;
    for (const r of pending.refusedAnswers ?? [])
      console.log(`answer refused: ${r.questionId} by ${r.by ?? 'someone'}: ${r.why}`);
    for (const r of pending.refusedDecisions ?? [])
      console.log(`decision refused: ${r.callId} by ${r.by ?? 'someone'}: ${r.why}`);
    for (const c of pending.calls) {
      console.log(
        `call ${c.callId} ${c.tool}: ${c.status}${c.rung ? `, settled by rung ${c.rung}` : ''}, ${c.attempts} attempt(s)`,
      );
    }
    console.log(`questions asked so far: ${pending.questionsAsked}`);
  });
}

runMain(main);
