// Counts a run's writes in the tracker, one expected effect at a time, by the key each write carries.
import { traceLine } from '../tracker/tools';
import { key } from '../common/key';
import type { Store } from '../tracker/store';
import type { Counts } from '../sweep/judge/counts';

/** One write the scripted run means to make: an issue, or a comment on the issue another call made. */
export interface ExpectedEffect {
  callId: string;
  kind: 'issue' | 'comment';
  /** For a comment: the call whose issue it belongs on. */
  on?: string;
}

/** The triage script's writes: two issues, and a comment on the first. */
export const TRIAGE_EFFECTS: readonly ExpectedEffect[] = [
  { callId: 'call_create_1', kind: 'issue' },
  { callId: 'call_create_2', kind: 'issue' },
  { callId: 'call_comment_1', kind: 'comment', on: 'call_create_1' },
];

/**
 * What a run left in the tracker, effect by effect: `dups` counts copies beyond the first of each
 * expected effect that are the same as another, and rows of an expected call in the wrong place;
 * `diverged`, copies of an expected call whose content differs (an issue's title, body or labels, a
 * comment's text: the call made again with other arguments, under the same key); `orphans`, rows that
 * carry the trace of no expected call (a call of a reply that is not the one the run kept);
 * `missing`, expected effects with no row at all, or whose only rows are in the wrong place;
 * `details`, the issues and comments.
 */
export type EffectCounts = Required<Pick<Counts, 'dups' | 'diverged' | 'missing' | 'orphans'>> & {
  details: { issues: number; comments: number };
};

/**
 * Counts a run's effects from the tracker's own rows, one expected effect at a time (the script's, or
 * those its history accounts for: `history-effects.ts`). Every row carries
 * the key of the call that made it (its trace line), so a lost issue and a duplicated one show as
 * 1 missing and 1 duplicate, never as a net 0; a comment counts only on the issue its script meant.
 */
export function countEffects(
  store: Store,
  repo: string,
  runId: string,
  expected: readonly ExpectedEffect[],
): EffectCounts {
  const issues = store.contents(repo);
  const traceOf = (callId: string) => traceLine(key(runId, callId));
  const has = (body: string, callId: string) => body.includes(traceOf(callId));
  let dups = 0;
  let diverged = 0;
  let missing = 0;
  const accounted = new Set<object>();
  for (const effect of expected) {
    const rows =
      effect.kind === 'issue'
        ? issues.filter((i) => has(i.body, effect.callId))
        : issues
            .filter((i) => effect.on === undefined || has(i.body, effect.on))
            .flatMap((i) => i.comments.filter((c) => has(c.body, effect.callId)));
    for (const row of rows) accounted.add(row);
    if (rows.length === 0) missing += 1;
    // Copies alike are duplicates; each content unlike the first is the call acted on with other arguments.
    const contents = new Set(rows.map((r) => ('title' in r ? JSON.stringify([r.title, r.body, r.labels]) : r.body)));
    diverged += Math.max(0, contents.size - 1);
    dups += rows.length - contents.size;
  }
  const all = [...issues, ...issues.flatMap((i) => i.comments)];
  const extra = all.filter((row) => !accounted.has(row));
  // A row of an expected call, in the wrong place (a comment on another issue), is an extra copy of it.
  const misplaced = extra.filter((row) => expected.some((e) => has(row.body, e.callId))).length;
  dups += misplaced;
  const orphans = extra.length - misplaced;
  return { dups, diverged, missing, orphans, details: { issues: issues.length, comments: all.length - issues.length } };
}
