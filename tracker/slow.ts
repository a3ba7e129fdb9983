// A slow receiver for the crash sweep: holds a run's first write before it commits.
import type { CommitHold } from './app';

/**
 * A receiver slower than its callers' timeouts, scripted for the crash sweep: the first mutation in a
 * repo (a run's first write) is held before it commits until the tracker has answered another request
 * of that repo (the caller gave up and came back: a retry, or a lookup), or at most `capMs`. A
 * timeout-driven step of the caller never lands on the same instant as the hold's end, so the same run
 * does the same thing on a busy machine.
 */
export class SlowCommits implements CommitHold {
  private readonly seen = new Set<string>();
  private readonly held = new Map<string, Set<() => void>>();

  constructor(private readonly capMs: number) {}

  beforeCommit(repo: string): Promise<void> {
    if (this.seen.has(repo)) return Promise.resolve();
    this.seen.add(repo);
    return new Promise((resolve) => {
      const waiting = this.held.get(repo) ?? new Set<() => void>();
      this.held.set(repo, waiting);
      const release = () => {
        clearTimeout(timer);
        waiting.delete(release);
        resolve();
      };
      const timer = setTimeout(release, this.capMs);
      waiting.add(release);
    });
  }

  answered(repo: string): void {
    for (const release of [...(this.held.get(repo) ?? [])]) release();
  }
}
