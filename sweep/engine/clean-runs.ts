// The clean runs: each row run twice with no kill, to record its crash points and what a process sets up once.
import type { Client } from '@temporalio/client';
import type { Outcome } from '../judge/counts';
import { compareCleanRuns, describeParting, describeSetup, type CleanComparison } from '../judge/clean-twice';
import { DirtyCleanRunError, historyProblem, judgeCleanRun } from '../judge/clean-run';
import { pointKey, samePointForEveryRun } from '../worker/line-protocol';
import type { SweepServer } from '../hosts/sweep-server';
import { runAndRerun, type RerunContext } from './reruns';
import { newScenario, type RanScenario } from './scenario';
import type { SuiteRow } from './suite';

/** What the clean runs found. */
export interface CleanRuns {
  /** Each row's first clean run, in the rows' order: the first pass kills a fresh run at each of its points. */
  cleans: RanScenario[];
  /** Each row's crash points, in the order a clean run reaches them. */
  points: Record<string, Array<{ name: string; detail: string }>>;
  /** What each row's clean run made (its calls and approvals, which the table counts beyond). */
  outcomes: Map<string, Outcome>;
  /** What the report says of the clean runs (points only a process's first run reaches, runs that parted). */
  notes: string[];
  /** By row: the points only a worker process's first run reaches. */
  setupPoints: Map<string, string[]>;
}

/**
 * Runs each row clean twice, the second run after the first in the same worker process, which shows
 * what a process sets up once and whether the row's points depend on timing (`judge/clean-twice.ts`).
 * A clean run that erred, or whose history has a timeout, may have met a busy machine: it runs again.
 * Any other problem stops the sweep at once (`DirtyCleanRunError`).
 */
export async function runCleanRuns(
  rows: readonly SuiteRow[],
  server: SweepServer,
  rerun: RerunContext,
  setupPoints: Map<string, string[]>,
): Promise<CleanRuns> {
  const { progress } = rerun;
  const notes: string[] = [];
  const problems = new Map<string, DirtyCleanRunError>();
  /** Each row's pair of clean runs: the first runs, then the second ones, in the rows' order. */
  const runPairs = async (of: readonly SuiteRow[], phase: string): Promise<Pair[]> => {
    const firsts = of.map((v) => newScenario(v, 'clean', 'run', [], []));
    const seconds = firsts.map((c) => newScenario(c.row, 'clean', 'again', [], [], c));
    const ran = await runAndRerun(
      [...firsts, ...seconds],
      phase,
      async (c) => {
        // Its code fails every workflow task: no run again mends that, so the sweep stops at once.
        if (c.taskFailure) throw new DirtyCleanRunError(c.row.name, `could not run: ${c.taskFailure}`);
        if (c.error) return c.error;
        const problem = await historyProblem(c.client ?? server.env.client, c);
        if (problem && !problem.mayBeLoad) throw problem;
        if (problem) problems.set(c.workflowId, problem);
        return problem?.message ?? null;
      },
      rerun,
    );
    return of.map((_, i): Pair => [ran[i], ran[of.length + i]]);
  };
  const pairs = await runPairs(rows, 'clean runs');
  await runPartedAgain(rows, pairs, runPairs, rerun);
  const cleans = pairs.map(([first]) => first);
  const cleanRuns = [...cleans, ...pairs.map(([, second]) => second)];
  const points: CleanRuns['points'] = {};
  const outcomes = new Map<string, Outcome>();
  for (const c of cleanRuns) {
    const o = judgeCleanRun(c, problems.get(c.workflowId));
    if (c.after) continue;
    points[c.row.name] = c.finalPoints.map(({ name, detail }) => ({ name, detail }));
    outcomes.set(c.row.name, o);
  }
  for (const [i, c] of cleans.entries()) {
    const compared = comparedPair(pairs[i]);
    if (!compared) {
      progress(`clean runs: ${c.row.name}'s two clean runs ran in different worker processes; not compared`);
      continue;
    }
    const { setup, parting } = compared;
    if (setup.length > 0) {
      setupPoints.set(c.row.name, setup);
      notes.push(describeSetup(c.row.name, setup));
      // The first pass kills a run at each point the clean run reached but these.
      const kept = c.finalPoints.filter((p) => !setup.includes(pointKey(samePointForEveryRun(p, c))));
      cleans[i] = { ...c, finalPoints: kept };
      points[c.row.name] = kept.map(({ name, detail }) => ({ name, detail }));
    }
    if (parting) {
      const timers = await timersOf(c.client ?? server.env.client, c.workflowId);
      notes.push(describeParting(c.row.name, parting, timers));
    }
  }
  for (const note of notes) progress(`clean runs: ${note}`);
  progress(`clean runs: ${cleans.map((c) => `${c.row.name} ${c.finalPoints.length} points`).join(', ')}`);
  return { cleans, points, outcomes, notes, setupPoints };
}

/** A row's two clean runs: the first, and the second after it in the same worker process. */
type Pair = readonly [RanScenario, RanScenario];

/**
 * Two clean runs that part may have met a busy machine once (a timer that won its race by a hair):
 * their row's pair runs again, and a pair that agrees stands for the row. A row whose pairs part
 * every time keeps its first pair, and the report says where its runs part.
 */
async function runPartedAgain(
  rows: readonly SuiteRow[],
  pairs: Pair[],
  runPairs: (of: readonly SuiteRow[], phase: string) => Promise<Pair[]>,
  rerun: RerunContext,
): Promise<void> {
  for (let attempt = 1; attempt <= rerun.maxReruns; attempt++) {
    const parted = pairs.flatMap((pair, i) => (comparedPair(pair)?.parting ? [i] : []));
    if (parted.length === 0) break;
    rerun.progress(
      `clean runs: ${parted.map((i) => `${rows[i].name} (at point ${comparedPair(pairs[i])!.parting!.at})`).join(', ')}: two clean runs parted, running them again (${attempt} of ${rerun.maxReruns})`,
    );
    const again = await runPairs(
      parted.map((i) => rows[i]),
      'clean runs, again',
    );
    parted.forEach((i, j) => {
      if (!comparedPair(again[j])?.parting) pairs[i] = again[j];
    });
  }
}

/**
 * What a row's two clean runs say of its points (`judge/clean-twice.ts`): its setup, and where the two
 * part; `null` when they ran in different worker processes, where nothing compares.
 */
function comparedPair([first, second]: Pair): CleanComparison | null {
  if (first.taskQueue !== second.taskQueue) return null;
  const seen = (s: RanScenario) => s.finalPoints.map((p) => samePointForEveryRun(p, s));
  return compareCleanRuns(seen(first), seen(second));
}

/** The timers a run started, by duration (`100ms`), in its history's order. */
async function timersOf(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const timeout = e.timerStartedEventAttributes?.startToFireTimeout;
    if (!timeout) return [];
    return [`${Number(timeout.seconds ?? 0) * 1000 + Math.round((timeout.nanos ?? 0) / 1e6)} ms`];
  });
}
