// What a run publishes about itself, as pure functions: search attributes and the Web UI's current details.
import { AGENT_PENDING_CALLS, AGENT_SEARCH_ATTRIBUTES, AGENT_WAITING } from '../common/search-attributes';
import { devServerArgs } from '../common/dev-server';
import type { CallRecord, OpenItem } from '../workflows/types';
import { currentDetails, waitingAttributes } from '../workflows/visibility';

const approval: OpenItem = { callId: 'call_create_1', tool: 'create_issue', args: { title: 'Checkout `500`' } };
const question: OpenItem = {
  callId: 'call_comment_1',
  questionId: 'call_comment_1#2',
  tool: 'comment_on_issue',
  args: {},
  reason: 'the worker died',
};

test('AgentWaiting names each kind of wait, or none; AgentPendingCalls lists each waiting call once', () => {
  const values = (state: { approvals: OpenItem[]; questions: OpenItem[] }) =>
    waitingAttributes(state).map((p) => [p.key.name, p.value]);
  expect(values({ approvals: [], questions: [] })).toEqual([
    [AGENT_WAITING.name, ['none']],
    [AGENT_PENDING_CALLS.name, []],
  ]);
  expect(
    values({
      approvals: [approval],
      questions: [question, { ...question, questionId: 'call_create_1#1', callId: 'call_create_1' }],
    }),
  ).toEqual([
    [AGENT_WAITING.name, ['approval', 'question']],
    [AGENT_PENDING_CALLS.name, ['call_create_1', 'call_comment_1']],
  ]);
});

test('current details give the command that answers each wait, what the run does, and how each call was settled', () => {
  const calls: CallRecord[] = [
    { callId: 'call_search_1', tool: 'search_issues', args: {}, status: 'done', attempts: 2, rung: 'repeat' },
    { callId: 'call_create_1', tool: 'create_issue', args: {}, status: 'waiting-approval', attempts: 0 },
  ];
  const text = currentDetails(
    'triage-1',
    'turn 2: tool call 2 of 2, create_issue',
    { approvals: [approval], questions: [question] },
    calls,
  );
  expect(text.split('\n')).toEqual([
    '**Waiting for a person**',
    '',
    '- approve call_create_1 (create_issue `{"title":"Checkout \'500\'"}`): `temporal workflow signal --workflow-id \'triage-1\' --name approve --input \'{"callId":"call_create_1","approved":true,"by":"YOUR NAME"}\'`, or deny with `"approved":false,"reason":"..."`',
    '- did call_comment_1 (comment_on_issue) happen? the worker died: `temporal workflow signal --workflow-id \'triage-1\' --name resolve --input \'{"questionId":"call_comment_1#2","happened":true}\'`, or `"happened":false`',
    '',
    '**Now:** turn 2: tool call 2 of 2, create_issue',
    '',
    '**Calls**',
    '',
    '- call_search_1 search_issues: done, 2 attempt(s), settled: repeated (harmless)',
    '- call_create_1 create_issue: waiting-approval, 0 attempt(s)',
  ]);
  expect(currentDetails('triage-1', '', { approvals: [], questions: [] }, [])).toBe('');
});

test('the dev server registers both attributes as keyword lists', () => {
  const args = devServerArgs({ port: 7233, searchAttributes: AGENT_SEARCH_ATTRIBUTES });
  expect(args.slice(args.indexOf('--search-attribute'))).toEqual([
    '--search-attribute',
    'AgentWaiting=KeywordList',
    '--search-attribute',
    'AgentPendingCalls=KeywordList',
  ]);
});
