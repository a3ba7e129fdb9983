// Two clean runs of a row, one after the other in one worker process: the points only a process's
// first run reaches (a connection it keeps), and where two clean runs part. How a point is named for
// the comparison is the worker's protocol too (`pointKey`, `samePointForEveryRun`): the worker skips
// the setup points by the same names.
import { pointKey, type ComparedPoint } from '../worker/line-protocol';

/** What two clean runs of one row, in one worker process, say of its points. */
export interface CleanComparison {
  /**
   * Points (`name detail`) the first run reached more often than the second: the setup of something the
   * process keeps (an MCP client's session, a pooled connection, a cached token). Every run of a sweep
   * passes them without counting them, and none is killed there.
   */
  setup: string[];
  /** Where the two runs' other points part (from 1), or `null` where they are the same. */
  parting: { at: number; first: ComparedPoint | null; second: ComparedPoint | null } | null;
}

function counts(points: readonly ComparedPoint[]): Map<string, number> {
  const n = new Map<string, number>();
  for (const p of points) n.set(pointKey(p), (n.get(pointKey(p)) ?? 0) + 1);
  return n;
}

/**
 * Compares a row's first clean run in a fresh worker process with a second one the same process ran
 * after it. A point the first reached more often than the second belongs to something the process set
 * up once; what is left must be the same list, or the row's points depend on timing (a timer racing an
 * activity) and `parting` says where.
 */
export function compareCleanRuns(first: readonly ComparedPoint[], second: readonly ComparedPoint[]): CleanComparison {
  const a = counts(first);
  const b = counts(second);
  const setup = [...a.keys()].filter((k) => a.get(k)! > (b.get(k) ?? 0));
  const kept = (points: readonly ComparedPoint[]) => points.filter((p) => !setup.includes(pointKey(p)));
  const x = kept(first);
  const y = kept(second);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (!x[i] || !y[i] || pointKey(x[i]) !== pointKey(y[i]))
      return { setup, parting: { at: i + 1, first: x[i] ?? null, second: y[i] ?? null } };
  }
  return { setup, parting: null };
}

/** A line for the report: where a row's two clean runs parted. */
export function describeParting(row: string, parting: NonNullable<CleanComparison['parting']>, timers: string[]) {
  const name = (p: ComparedPoint | null) => (p ? `${p.name} (${p.detail})` : 'its end');
  const raced = timers.length
    ? `; the run starts ${timers.length === 1 ? 'a timer' : 'timers'} (${timers.join(', ')}) that its points may race`
    : '';
  return `${row}: two clean runs part at point ${parting.at}, ${name(parting.first)} against ${name(parting.second)}${raced}: kills there may land elsewhere`;
}

/** A line for the report: the points of a row that only a worker process's first run reaches. */
export function describeSetup(row: string, setup: string[]): string {
  return `${row}: ${setup.join(', ')}: reached only by the first run of a worker process (a connection or client it keeps); not counted and not killed at`;
}
