import { condition, setHandler } from '@temporalio/workflow';
import { resolveSignal, type ResolveSignal } from './signals';
import { crashPoints } from './sinks';
import type { OpenItem } from './types';

/**
 * The last rung of the ladder: questions to a person ("did this call happen?") and their answers,
 * which arrive by the `resolve` signal. Call once per workflow run; it installs the signal handler.
 */
export function personQuestions() {
  const open = new Map<string, OpenItem>();
  const answers = new Map<string, ResolveSignal>();
  let asked = 0;

  setHandler(resolveSignal, (answer) => {
    // Kept until the call's question is asked, even if it comes first: a worker that died while asking
    // may hand the question to a restart that sees the answer before it asks again. First answer wins.
    if (!answers.has(answer.callId)) answers.set(answer.callId, answer);
  });

  return {
    /** Questions waiting for an answer, for the `pending` query. */
    open: () => [...open.values()],
    /** Questions asked so far. */
    asked: () => asked,
    /** Asks about one call and waits for the answer. */
    async ask(item: OpenItem): Promise<ResolveSignal> {
      asked += 1;
      open.set(item.callId, item);
      crashPoints.reached('question.asked', `${item.tool} ${item.callId} #${asked}`);
      await condition(() => answers.has(item.callId));
      const answer = answers.get(item.callId)!;
      answers.delete(item.callId);
      open.delete(item.callId);
      return answer;
    },
  };
}
