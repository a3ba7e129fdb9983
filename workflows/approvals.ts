// The approval gate: a call that needs approval waits for the `approve` signal, or its deadline.
import { condition, patched, setHandler } from '@temporalio/workflow';
import {
  approveSignal,
  approveUpdate,
  setJudgedUpdate,
  SIGNAL_INPUT_PATCH,
  SIGNALS_BOUNDED_PATCH,
  type ApproveSignal,
  type DecisionTaken,
} from './signals';
import { EARLY_KEPT, readDecision, refusalLog } from './signal-input';
import { crashPoints } from '../common/crash-sink';
import type { ApprovalsState, OpenItem, RefusedDecision } from './types';

/**
 * The approval gate: calls that wait for a person's decision, which arrives by the `approve` signal.
 * Call once per workflow run; it installs the signal handler. `onChange` is called whenever a call
 * starts or stops waiting. With `timeoutMs`, a call that gets no decision in that time is denied.
 * `carried` is the state of the previous run of a chain (continue-as-new).
 *
 * A decision is read exactly (`readDecision`): one that is not an object with a `callId` string and an
 * `approved` boolean, or with a field over its cap, is refused, kept in `refused()` with the reason,
 * and approves nothing. The first decision on a call wins: a repeated or contradicting one is refused,
 * so it cannot run a call twice. A decision that names a digest other than that of the call's tool and
 * arguments is refused, and the call goes on waiting. A decision for a call that does not wait yet is
 * taken only when it names a digest, and then decides only a call with exactly those arguments: nobody
 * approves what they were not shown. At most `EARLY_KEPT` such decisions are held; refusals are kept as
 * a count and the newest `REFUSALS_KEPT`.
 */
export function approvalGate(onChange: () => void = () => {}, timeoutMs?: number, carried?: ApprovalsState) {
  const decisions = new Map<string, ApproveSignal>((carried?.decisions ?? []).map((d) => [d.callId, d]));
  const waiting = new Map<string, OpenItem>();
  let requested = carried?.requested ?? 0;
  // Runs whose history predates the checks go on taking decisions as they did (nothing malformed throws).
  const exact = patched(SIGNAL_INPUT_PATCH);
  const bounded = exact && patched(SIGNALS_BOUNDED_PATCH);
  const refusedDecisions = refusalLog<RefusedDecision>(carried?.refused, carried?.refusedCount, bounded);
  // Calls decided before they waited: held until they do, and few.
  const early = new Set<string>(carried?.early ?? []);

  const refuse = (callId: string, by: string | undefined, why: string): void => {
    refusedDecisions.add({ callId, ...(by ? { by } : {}), why });
  };
  /** Why a decision naming a digest does not fit the call waiting under its id, or `null`. */
  const digestMismatch = (decision: ApproveSignal, item: OpenItem | undefined) =>
    decision.digest !== undefined && item !== undefined && decision.digest !== item.digest
      ? `the decision names ${decision.digest}, but ${item.callId} waits with ${item.tool} ${item.digest}`
      : null;

  /** Whether the run takes a decision now, and why not: the same checks for the signal and the Update, changing nothing. */
  const judge = (
    value: unknown,
  ): { decision: ApproveSignal; waits: boolean } | { refused: string; named: string; by?: string } => {
    const read = readDecision(value, { capped: bounded });
    if ('refused' in read) return read;
    const decision = read.ok;
    const named = decision.callId;
    const refused = (why: string) => ({ refused: why, named, by: decision.by });
    if (decisions.has(named)) return refused('the call already has a decision');
    const item = waiting.get(named);
    const mismatch = digestMismatch(decision, item);
    if (mismatch) return refused(mismatch);
    if (bounded && !item && decision.digest === undefined)
      return refused(
        'the call does not wait for a decision: one sent before it waits must name the digest of exactly that call',
      );
    if (bounded && !item && early.size >= EARLY_KEPT)
      return refused(`${EARLY_KEPT} decisions already wait for calls that do not wait yet`);
    return { decision, waits: item !== undefined };
  };
  const take = ({ decision, waits }: { decision: ApproveSignal; waits: boolean }): DecisionTaken => {
    if (bounded && !waits) early.add(decision.callId);
    decisions.set(decision.callId, decision);
    return {
      callId: decision.callId,
      approved: decision.approved,
      taken: waits ? 'decided' : 'held until the call waits',
    };
  };

  setHandler(approveSignal, (value: unknown) => {
    if (!exact) {
      const decision = value as ApproveSignal | null;
      if (typeof decision === 'object' && decision !== null && !decisions.has(decision.callId))
        decisions.set(decision.callId, decision);
      return;
    }
    const judged = judge(value);
    if ('refused' in judged) refuse(judged.named, judged.by, judged.refused);
    else take(judged);
  });
  // The Update: refused in its validator (no event, nothing kept), or taken and answered at once.
  if (bounded)
    setJudgedUpdate<DecisionTaken, ApproveSignal, { decision: ApproveSignal; waits: boolean }>(
      approveUpdate,
      judge,
      take,
    );

  return {
    /** Calls waiting for a decision, for the `pending` query. */
    open: () => [...waiting.values()],
    /** Approvals requested so far; each call waits for at most one. */
    requested: () => requested,
    /** Decisions not taken, and why (the newest, in a run since the caps). */
    refused: () => refusedDecisions.list(),
    /** How many decisions were not taken in all. */
    refusedCount: () => refusedDecisions.count(),
    /** What the next run of a chain needs (between turns, when no call waits). */
    snapshot: (): ApprovalsState => ({
      decisions: [...decisions.values()],
      requested,
      ...(exact ? { refused: refusedDecisions.list() } : {}),
      ...(bounded ? { refusedCount: refusedDecisions.count(), early: [...early] } : {}),
    }),
    /** Waits for the decision on one call. */
    async request(item: OpenItem): Promise<ApproveSignal> {
      requested += 1;
      // A decision that came before the call waited, for other arguments than it has, approves nothing.
      const before = decisions.get(item.callId);
      const mismatch = exact && before ? digestMismatch(before, item) : null;
      if (before && mismatch) {
        decisions.delete(item.callId);
        refuse(item.callId, before.by, mismatch);
      }
      early.delete(item.callId);
      waiting.set(item.callId, item);
      onChange();
      // The digest is in the point's detail: what a person who saw the request may approve it with.
      crashPoints.reached('approval.pending', `${item.tool} ${item.callId} ${item.digest ?? ''}`.trimEnd());
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
