// What a run shows outside: memo, search attributes and current details.
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { patched, setCurrentDetails, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import { AGENT_PENDING_CALLS, AGENT_WAITING, WAITING_NONE } from '../common/search-attributes';
import { WAITING_MEMO } from './signals';
import type { CallRecord, Rung, WaitingState } from './types';

const RUNG_WORDS: Record<Rung, string> = {
  clean: 'ran once',
  repeat: 'repeated (harmless)',
  lookup: 'the receiver was asked',
  person: 'a person answered',
};

/** The patch that brought the search attributes: a run started before it never sets them. */
export const SEARCH_ATTRIBUTES_PATCH = 'agent-waiting-search-attributes';

/** `AgentWaiting` and `AgentPendingCalls` for what a run waits for. */
export function waitingAttributes(state: WaitingState): SearchAttributeUpdatePair[] {
  const kinds = [...(state.approvals.length ? ['approval'] : []), ...(state.questions.length ? ['question'] : [])];
  const calls = [...new Set([...state.approvals, ...state.questions].map((item) => item.callId))];
  return [
    { key: AGENT_WAITING, value: kinds.length ? kinds : [WAITING_NONE] },
    { key: AGENT_PENDING_CALLS, value: calls },
  ];
}

const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;

/** A word for a POSIX shell, in single quotes. */
const shellWord = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The command that sends a run a signal, as anyone with the Temporal CLI can type it (the package's own
 * clients, `approveCall` and `answerQuestion`, send the same signals from code).
 */
const signalCommand = (workflowId: string, name: string, input: object) =>
  `temporal workflow signal --workflow-id ${shellWord(workflowId)} --name ${name} --input ${shellWord(JSON.stringify(input))}`;

/**
 * The run's current details, as the Web UI shows them (Markdown): what it waits for, with the
 * Temporal CLI command that answers each wait (an approval names the digest of what was shown; `by`
 * is for the person to fill in), then what it does now and every call so far with the rung that settled it.
 */
export function currentDetails(
  workflowId: string,
  doing: string,
  waiting: WaitingState,
  calls: readonly CallRecord[],
): string {
  const lines: string[] = [];
  if (waiting.approvals.length || waiting.questions.length) {
    lines.push('**Waiting for a person**', '');
    for (const a of waiting.approvals) {
      const decision = { callId: a.callId, approved: true, by: 'YOUR NAME', ...(a.digest ? { digest: a.digest } : {}) };
      lines.push(
        `- approve ${a.callId} (${a.tool} ${code(JSON.stringify(a.args))}${a.digest ? `, ${a.digest}` : ''}): ${code(signalCommand(workflowId, 'approve', decision))}, or deny with ${code('"approved":false,"reason":"..."')}`,
      );
    }
    for (const q of waiting.questions) {
      const answer = signalCommand(workflowId, 'resolve', { questionId: q.questionId ?? q.callId, happened: true });
      lines.push(
        `- did ${q.callId} (${q.tool}) happen? ${q.reason ?? ''}: ${code(answer)}, or ${code('"happened":false')}`,
      );
    }
    lines.push('');
  }
  if (doing) lines.push(`**Now:** ${doing}`, '');
  if (calls.length) {
    lines.push('**Calls**', '');
    for (const c of calls) {
      const settled = c.rung ? `, settled: ${RUNG_WORDS[c.rung]}` : '';
      lines.push(`- ${c.callId} ${c.tool}: ${c.status}, ${c.attempts} attempt(s)${settled}`);
    }
  }
  return lines.join('\n').trim();
}

/**
 * What a run shows outside itself, for people and tools that look without a worker or with one:
 * its memo and search attributes say what it waits for (the server answers for them alone), and its
 * current details (the Web UI's "current details", answered by a worker) tell the whole story.
 */
export function runVisibility(workflowId: string, calls: readonly CallRecord[], searchAttributes = true) {
  let waiting: WaitingState = { approvals: [], questions: [] };
  let doing = '';
  const render = () => setCurrentDetails(currentDetails(workflowId, doing, waiting, calls));
  return {
    /** The run started or stopped waiting for a person: published in its memo and search attributes. */
    waiting(state: WaitingState): void {
      waiting = state;
      upsertMemo({ [WAITING_MEMO]: state });
      // Runs whose history predates the search attributes replay without them (the memo alone).
      if (searchAttributes && patched(SEARCH_ATTRIBUTES_PATCH)) upsertSearchAttributes(waitingAttributes(state));
      render();
    },
    /** What the run does now (current details only: no command, nothing in history). */
    doing(text: string): void {
      doing = text;
      render();
    },
  };
}
