import type { Client } from '@temporalio/client';
import { key } from '../common/key';
import { traceLine } from '../activities/tracker-tools';
import type { Store } from '../tracker/store';
import { approveSignal, pendingQuery, resolveSignal } from '../workflows/signals';
import type { CrashEvent } from './crash-control';

/** What the person needs to know about a run to answer for it. */
export interface PersonRun {
  workflowId: string;
  runId: string;
  repo: string;
  store: Store;
}

/**
 * The sweep's scripted person. It approves every call that asks, and answers "did this call happen?"
 * truthfully, by looking in the tracker's own records for the key the call wrote. It counts the
 * questions it was asked, so asks are counted outside the worker.
 *
 * It answers only once the workflow task that asked has been reported: it first queries the run's
 * `pending` state, which the server answers only after that task completes. A signal sent sooner
 * could land inside the asking task and change how many tasks the restart needs, and with that the
 * crash points the second pass finds; answering after the task keeps every sweep the same.
 */
export class ScriptedPerson {
  private readonly questions = new Map<string, Set<string>>();
  private readonly approvals = new Map<string, Set<string>>();
  private readonly busy = new Set<Promise<void>>();
  private readonly errors: string[] = [];

  constructor(private readonly client: Client) {}

  /** Questions this person was asked about a run: each "did it happen?" once, however often a restart re-sent it. */
  asksFor(workflowId: string): number {
    return this.questions.get(workflowId)?.size ?? 0;
  }

  /** Distinct calls this person was asked to approve for a run. */
  approvalsFor(workflowId: string): number {
    return this.approvals.get(workflowId)?.size ?? 0;
  }

  /** Failures to answer, for the sweep's error report. */
  failures(): string[] {
    return [...this.errors];
  }

  /** Reacts to a worker's event about a run. */
  notice(run: PersonRun, event: CrashEvent): void {
    if (event.type !== 'point' && event.type !== 'parked') return;
    if (event.name === 'question.asked') {
      const seen = this.questions.get(run.workflowId) ?? new Set<string>();
      this.questions.set(run.workflowId, seen);
      if (seen.has(event.detail)) return; // a restart re-ran the task that asked: the same question
      seen.add(event.detail);
      const [, callId] = event.detail.split(' ');
      this.track(this.answer(run, callId));
    } else if (event.name === 'approval.pending') {
      const [, callId] = event.detail.split(' ');
      const seen = this.approvals.get(run.workflowId) ?? new Set<string>();
      this.approvals.set(run.workflowId, seen);
      if (seen.has(callId)) return;
      seen.add(callId);
      this.track(this.approve(run, callId));
    }
  }

  private track(work: Promise<void>): void {
    this.busy.add(work);
    work.finally(() => this.busy.delete(work));
  }

  /** Waits until the run's `pending` state lists the item, retrying while no worker can answer. */
  private async whenListed(run: PersonRun, listed: (p: Awaited<ReturnType<typeof this.queryPending>>) => boolean): Promise<void> {
    const deadline = Date.now() + 300_000;
    for (;;) {
      try {
        if (listed(await this.queryPending(run))) return;
      } catch {
        // no live worker holds the run right now (parked or killed): ask again shortly
      }
      if (Date.now() > deadline) throw new Error(`run ${run.workflowId} never listed what the person was asked`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  private queryPending(run: PersonRun) {
    const handle = this.client.workflow.getHandle(run.workflowId);
    return this.client.connection.withDeadline(Date.now() + 5_000, () => handle.query(pendingQuery));
  }

  private async approve(run: PersonRun, callId: string): Promise<void> {
    try {
      await this.whenListed(run, (p) => p.approvals.some((a) => a.callId === callId));
      await this.client.workflow.getHandle(run.workflowId).signal(approveSignal, { callId, approved: true, by: 'scripted person' });
    } catch (err) {
      this.errors.push(`${run.workflowId}: approving ${callId}: ${(err as Error).message}`);
    }
  }

  private async answer(run: PersonRun, callId: string): Promise<void> {
    try {
      await this.whenListed(run, (p) => p.questions.some((q) => q.callId === callId));
      const truth = findEffect(run, callId);
      await this.client.workflow.getHandle(run.workflowId).signal(resolveSignal, {
        callId,
        happened: truth !== null,
        result: truth ?? undefined,
        by: 'scripted person',
      });
    } catch (err) {
      this.errors.push(`${run.workflowId}: answering for ${callId}: ${(err as Error).message}`);
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
