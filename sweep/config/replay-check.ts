// The replay check of a deploy mid-run: every history a row recorded, replayed by its next build, as a replay test in CI would.
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { entryFile, tsxFlags } from '../../common/tsx';
import { endWithSweep } from '../hosts/children';

/** What the check found for a row: how many of its histories its next build replayed, and how many failed. */
export interface ReplayCount {
  replayed: number;
  failed: number;
  /** The first failure's text, for the report. */
  firstFailure?: string;
  /** The row's deploy is pinned (Worker Versioning): its runs never replay on the next build. */
  pinned?: boolean;
}

/**
 * Replays histories with a next build's bundle, in a process of its own (`replay-main.ts`, started at
 * the first replay), so that the SDK's warnings of non-determinism stay off the sweep's output.
 */
export class ReplayCheck {
  readonly counts = new Map<string, ReplayCount>();
  private child: ChildProcess | null = null;
  /** By workflow id (unique in a sweep): the run whose replay is awaited. */
  private readonly waiting = new Map<string, (reply: { ok: boolean; error?: string }) => void>();

  /** Replays the run's history with `bundle` and counts it under `row` (`pinned`: a pinned deploy's). */
  async check(row: string, bundle: string, client: Client, workflowId: string, pinned = false): Promise<void> {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const reply = new Promise<{ ok: boolean; error?: string }>((resolve) => this.waiting.set(workflowId, resolve));
    this.process().send({ bundle, workflowId, history: historyToJSON(history) });
    const { ok, error } = await reply;
    const count = this.counts.get(row) ?? { replayed: 0, failed: 0, ...(pinned ? { pinned } : {}) };
    this.counts.set(row, count);
    count.replayed += 1;
    if (!ok) {
      count.failed += 1;
      count.firstFailure ??= error;
    }
  }

  /** One line per row for the report. */
  notes(): string[] {
    return [...this.counts].map(
      ([row, { replayed, failed, firstFailure, pinned }]) =>
        `replay check: ${failed} of the ${replayed} histories of ${row} fail when its next build replays them` +
        (failed === 0
          ? ''
          : pinned
            ? ` (${firstLine(firstFailure)}): deployed pinned, no run of the build before replays on it, so the deploy needs no replay-safe change`
            : ` (${firstLine(firstFailure)}): a replay test in CI would have refused the deploy`),
    );
  }

  close(): void {
    this.child?.disconnect();
    this.child = null;
  }

  private process(): ChildProcess {
    if (this.child) return this.child;
    const child = fork(entryFile(path.join(__dirname, 'replay-main.ts')), [], {
      execArgv: tsxFlags(),
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    endWithSweep(child);
    child.on('message', (m: { workflowId: string; ok: boolean; error?: string }) => {
      this.waiting.get(m.workflowId)?.(m);
      this.waiting.delete(m.workflowId);
    });
    child.on('exit', () => {
      for (const resolve of this.waiting.values()) resolve({ ok: false, error: 'the replay process ended' });
      this.waiting.clear();
      if (this.child === child) this.child = null;
    });
    this.child = child;
    return child;
  }
}

/** What a replay's failure says, shortly: the SDK's own error (`[TMPRL1100] Nondeterminism error: ...`), or its first line. */
function firstLine(failure = ''): string {
  return (/\[TMPRL\d+\][^"]*/.exec(failure)?.[0] ?? failure.split('\n')[0]).trim();
}
