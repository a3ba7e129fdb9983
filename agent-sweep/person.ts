// The scripted person: approves calls and answers "did it happen?" from the tracker's records (or wrongly, or denies).
import type { Client } from '@temporalio/client';
import { key } from '../common/key';
import { traceLine } from '../tracker/tools';
import type { Store } from '../tracker/store';
import { splitQuestionId } from '../workflows/questions';
import { approveSignal, resolveSignal } from '../workflows/signals';
import type { CrashEvent } from '../sweep/worker/line-protocol';

/**
 * How the person answers: `truthful` approves every call and answers "did it happen?" from the
 * tracker's records; `wrong` approves too, and answers every question with the opposite of the truth;
 * `denies` denies every call it is asked to approve (and answers questions truthfully).
 */
export type PersonMode = 'truthful' | 'wrong' | 'denies';

/** What the person needs to know about a run to answer for it. */
export interface PersonRun {
  /** A client of the server the run lives on, to signal it. */
  client: Client;
  workflowId: string;
  runId: string;
  repo: string;
  store: Store;
  /** Default `truthful`. */
  mode?: PersonMode;
}

/**
 * The sweep's scripted person. It approves every call that asks, and answers "did this call happen?"
 * truthfully, by looking in the tracker's own records for the key the call wrote; or, as its run's
 * {@link PersonMode} says, answers wrong or denies. It counts the questions it was asked, so asks are
 * counted outside the worker.
 *
 * It answers as soon as the worker reports the question or the request, by signal. The run keeps an
 * answer that arrives before it asks (as when the worker died while asking and the answer reaches
 * the restart first), so the answer's timing cannot change what the run does next, and two sweeps
 * see the same crash points.
 */
export class ScriptedPerson {
  private readonly questions = new Map<string, Set<string>>();
  private readonly approvals = new Map<string, Set<string>>();
  private readonly approved = new Map<string, Set<string>>();
  /** The questions answered, as `execution detail`, by the workflow id of their run. */
  private readonly answeredIn = new Map<string, Set<string>>();
  private readonly busy = new Set<Promise<void>>();
  /** Why the person could not answer, by the workflow id of its run. */
  private readonly errors = new Map<string, string[]>();

  /** Questions this person was asked about a run: each "did it happen?" once, however often a restart re-sent it. */
  asksFor(workflowId: string): number {
    return this.questions.get(workflowId)?.size ?? 0;
  }

  /** The digests of the calls this person approved for a run: what it was shown and said yes to. */
  approvedFor(workflowId: string): ReadonlySet<string> {
    return this.approved.get(workflowId) ?? new Set();
  }

  /**
   * Why this person could not approve or answer for a run (a signal it failed to send), or `undefined`:
   * a person who could not act is an error of that run's scenario, never a count.
   */
  failureOf(workflowId: string): string | undefined {
    const errors = this.errors.get(workflowId);
    // Sorted: signals under way fail in whatever order the server answers, and a report must not move.
    return errors ? [...errors].sort().join('; ') : undefined;
  }

  private fail(workflowId: string, what: string, err: unknown): void {
    const errors = this.errors.get(workflowId) ?? [];
    errors.push(`the scripted person failed ${what}: ${(err as Error).message}`);
    this.errors.set(workflowId, errors);
  }

  /** Reacts to a worker's event about a run. */
  notice(run: PersonRun, event: CrashEvent): void {
    if (event.type !== 'point' && event.type !== 'parked') return;
    if (event.name === 'question.asked') {
      // Counted once per run, however often it is asked.
      const seen = this.questions.get(run.workflowId) ?? new Set<string>();
      this.questions.set(run.workflowId, seen);
      seen.add(event.detail);
      const [, questionId] = event.detail.split(' ');
      this.track(this.answerOnceIn(run, questionId, event.detail));
    } else if (event.name === 'approval.pending') {
      // The request as a person sees it: the call and the digest of its tool and arguments. A request
      // under a call id seen before with other arguments (a run reset, with a model that changed its
      // mind under the same ids) is a new request: the decision on the old one does not fit it.
      const [, callId, digest] = event.detail.split(' ');
      const seen = this.approvals.get(run.workflowId) ?? new Set<string>();
      this.approvals.set(run.workflowId, seen);
      if (seen.has(`${callId} ${digest ?? ''}`)) return;
      seen.add(`${callId} ${digest ?? ''}`);
      this.track(this.approve(run, callId, digest));
    }
  }

  private track(work: Promise<void>): void {
    this.busy.add(work);
    // The work never rejects: each answer catches its own failure and keeps it for its run (`failureOf`).
    void work.finally(() => this.busy.delete(work));
  }

  private async approve(run: PersonRun, callId: string, digest: string | undefined): Promise<void> {
    try {
      const approved = run.mode !== 'denies';
      if (approved && digest) {
        const given = this.approved.get(run.workflowId) ?? new Set<string>();
        this.approved.set(run.workflowId, given);
        given.add(digest);
      }
      // With the digest it was shown, so the decision counts even when it reaches a restart before the call waits again.
      await run.client.workflow.getHandle(run.workflowId).signal(approveSignal, {
        callId,
        approved,
        by: 'scripted person',
        ...(digest ? { digest } : {}),
        ...(approved ? {} : { reason: 'not now' }),
      });
    } catch (err) {
      this.fail(run.workflowId, `approving ${callId}`, err);
    }
  }

  /**
   * Answers a question once in each execution that asks it: a restart that re-ran the task that asked
   * is the same execution, and the answer sent to it stands; a reset or a retry of the run is a new
   * execution, which never got the answer the earlier one did.
   */
  private async answerOnceIn(run: PersonRun, questionId: string, detail: string): Promise<void> {
    let execution: string;
    try {
      execution = (await run.client.workflow.getHandle(run.workflowId).describe()).runId;
    } catch (err) {
      return this.fail(run.workflowId, `answering ${questionId}`, err);
    }
    const answered = this.answeredIn.get(run.workflowId) ?? new Set<string>();
    this.answeredIn.set(run.workflowId, answered);
    if (answered.has(`${execution} ${detail}`)) return;
    answered.add(`${execution} ${detail}`);
    await this.answer(run, questionId);
  }

  private async answer(run: PersonRun, questionId: string): Promise<void> {
    const callId = splitQuestionId(questionId)?.callId ?? questionId;
    try {
      const truth = findEffect(run, callId);
      // A wrong "it happened" carries no result: the person has none to give.
      const happened = run.mode === 'wrong' ? truth === null : truth !== null;
      await run.client.workflow.getHandle(run.workflowId).signal(resolveSignal, {
        questionId,
        happened,
        result: happened ? (truth ?? undefined) : undefined,
        by: 'scripted person',
      });
    } catch (err) {
      this.fail(run.workflowId, `answering ${questionId}`, err);
    }
  }

  /** Resolves once every answer under way has been sent. */
  async settle(): Promise<void> {
    while (this.busy.size > 0) await Promise.allSettled([...this.busy]);
  }
}

/**
 * What the call created, as the tool would have returned it, or `null` if the tracker has no trace of
 * it: the truth a careful person would find by searching for the call's key.
 */
export function findEffect(run: PersonRun, callId: string): string | null {
  const trace = traceLine(key(run.runId, callId));
  for (const issue of run.store.searchIssues(run.repo, trace)) {
    if (issue.body.includes(trace)) return JSON.stringify(issue);
    const comment = run.store.commentsOf(run.repo, issue.number).find((c) => c.body.includes(trace));
    if (comment) return JSON.stringify(comment);
  }
  return null;
}
