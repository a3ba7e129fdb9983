// The approvals a run acted on, from its history: each tool call it ran as approved, with the digest it ran under.
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { callDigest } from '../workflows/digest';

/** A tool call the run scheduled as approved: its call id, and the digest of the approval it carries. */
export interface ApprovedCall {
  callId: string;
  /** The digest the approval named. */
  approved: string;
  /** The digest of the tool and arguments the call was run with. */
  ran: string;
}

/**
 * Every tool call the run's latest execution scheduled as approved (`runTool` with `approved`), read
 * from its history: what a check holds against the digests the person approved, so that no call ran
 * under an approval of other arguments (as a reset that reapplies an old approval to a new reply could).
 */
export async function approvedCallsInHistory(client: Client, workflowId: string): Promise<ApprovedCall[]> {
  return approvedCalls(await client.workflow.getHandle(workflowId).fetchHistory());
}

/** The calls a history scheduled as approved (see {@link approvedCallsInHistory}). */
export function approvedCalls(history: temporal.api.history.v1.IHistory): ApprovedCall[] {
  const found: ApprovedCall[] = [];
  for (const e of history.events ?? []) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'runTool') continue;
    const [request] = (scheduled.input?.payloads ?? []).map((p) => defaultPayloadConverter.fromPayload(p)) as Array<{
      callId?: string;
      tool?: string;
      args?: Record<string, unknown>;
      approved?: string;
    }>;
    if (!request?.approved || !request.tool || !request.callId) continue;
    found.push({
      callId: request.callId,
      approved: request.approved,
      ran: callDigest(request.tool, request.args ?? {}),
    });
  }
  return found;
}

/**
 * Why calls ran under approvals the person never gave for their arguments: one line per call whose
 * approval names a digest other than its own tool's and arguments', or one the person did not approve.
 */
export function approvalBreaches(calls: readonly ApprovedCall[], approvedByPerson: ReadonlySet<string>): string[] {
  return calls
    .filter((c) => c.ran !== c.approved || !approvedByPerson.has(c.approved))
    .map(
      (c) =>
        `${c.callId} ran approved as ${c.approved}, but its arguments are ${c.ran} and the person approved ${[...approvedByPerson].join(', ') || 'nothing'}`,
    );
}
