// The check that no call ran under an approval of other arguments than the person was shown
// (agent-sweep/approvals-in-history.ts), on made-up histories: it passes a run whose calls carry the
// approvals the person gave, and names every call that ran under another.
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { approvalBreaches, approvedCalls } from '../agent-sweep/approvals-in-history';
import { callDigest } from '../workflows/digest';

const shown = { title: 'Checkout returns 500', body: 'as the person saw it' };
const other = { title: 'Checkout returns 500 (take 2)', body: 'another reply' };

/** A history with one scheduled activity per request. */
function history(...requests: Array<{ type?: string; request: object }>): temporal.api.history.v1.IHistory {
  return {
    events: requests.map(({ type = 'runTool', request }) => ({
      activityTaskScheduledEventAttributes: {
        activityType: { name: type },
        input: { payloads: [defaultPayloadConverter.toPayload(request)] },
      },
    })),
  };
}

test('a call that ran approved with the digest of its own arguments, which the person approved, is no breach', () => {
  const approved = callDigest('create_issue', shown);
  const calls = approvedCalls(
    history(
      { request: { callId: 'call_create_1', tool: 'create_issue', args: shown, approved } },
      // Calls that needed no approval, and other activities, are not read.
      { request: { callId: 'call_search_1', tool: 'search_issues', args: { query: 'x' } } },
      { type: 'callModel', request: { approved: 'not a tool call' } },
    ),
  );
  expect(calls).toEqual([{ callId: 'call_create_1', approved, ran: approved }]);
  expect(approvalBreaches(calls, new Set([approved]))).toEqual([]);
});

test('an approval of other arguments, or one the person never gave, is named as a breach', () => {
  const old = callDigest('create_issue', shown);
  const calls = approvedCalls(
    history(
      // A reset reapplied the old approval, and a broken gate let it meet the new reply's arguments.
      { request: { callId: 'call_create_1', tool: 'create_issue', args: other, approved: old } },
      // Arguments and approval agree, but the person never approved them.
      {
        request: {
          callId: 'call_create_2',
          tool: 'create_issue',
          args: other,
          approved: callDigest('create_issue', other),
        },
      },
    ),
  );
  const now = callDigest('create_issue', other);
  expect(approvalBreaches(calls, new Set([old]))).toEqual([
    `call_create_1 ran approved as ${old}, but its arguments are ${now} and the person approved ${old}`,
    `call_create_2 ran approved as ${now}, but its arguments are ${now} and the person approved ${old}`,
  ]);
  expect(approvalBreaches([], new Set())).toEqual([]);
});
