// The approval gate: a call that needs approval waits for the `approve` signal, or its deadline.
import { condition, setHandler } from '@temporalio/workflow';
import { approveSignal, type ApproveSignal } from './signals';
import { crashPoints } from '../common/crash-sink';
import type { ApprovalsState, OpenItem } from './types';

/**
 * The approval gate: calls that wait for a person's decision, which arrives by the `approve` signal.
 * Call once per workflow run; it installs the signal handler. `onChange` is called whenever a call
 * starts or stops waiting. With `timeoutMs`, a call that gets no decision in that time is denied.
 * `carried` is the state of the previous run of a chain (continue-as-new). A decision for a call that is not
 * waiting yet is kept until it is, and the first decision on a call wins: a repeated or contradicting
 * approval cannot run a call twice.
 */
export function approvalGate(onChange: () => void = () => {}, timeoutMs?: number, carried?: ApprovalsState) {
  const decisions = new Map<string, ApproveSignal>((carried?.decisions ?? []).map((d) => [d.callId, d]));
  const waiting = new Map<string, OpenItem>();
  let requested = carried?.requested ?? 0;

  setHandler(approveSignal, (decision) => {
    if (!decisions.has(decision.callId)) decisions.set(decision.callId, decision);
  });

  return {
    /** Calls waiting for a decision, for the `pending` query. */
    open: () => [...waiting.values()],
    /** Approvals requested so far; each call waits for at most one. */
    requested: () => requested,
    /** What the next run of a chain needs (between turns, when no call waits). */
    snapshot: (): ApprovalsState => ({ decisions: [...decisions.values()], requested }),
    /** Waits for the decision on one call. */
    async request(item: OpenItem): Promise<ApproveSignal> {
      requested += 1;
      waiting.set(item.callId, item);
      onChange();
      crashPoints.reached('approval.pending', `${item.tool} ${item.callId}`);
      const isDecided = () => decisions.has(item.callId);
      let decided = true;
      if (timeoutMs === undefined) await condition(isDecided);
      else decided = await condition(isDecided, timeoutMs);
      // No decision in time: the call is denied, and that is its decision, so a late approval cannot run it.
      if (!decided)
        decisions.set(item.callId, {
          callId: item.callId,
          approved: false,
          by: 'nobody',
          reason: `the approval timed out after ${Math.round(timeoutMs! / 1000)} s`,
        });
      waiting.delete(item.callId);
      onChange();
      return decisions.get(item.callId)!;
    },
  };
}
