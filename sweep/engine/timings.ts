// Where a sweep's time and CPU went, by phase and by process.
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

const CORES = os.availableParallelism();

/** The phases a batch of scenarios goes through, in order. */
export const PHASES = {
  start: 'starting the runs',
  launch: 'waiting for a worker generation to load',
  park: 'running each run to its crash point',
  kill: 'SIGKILL and moving the runs off the dead worker',
  finish: 'running every run to its end',
  count: 'counting effects and checking histories',
} as const;

/** The name of a phase. */
export type Phase = keyof typeof PHASES;

/**
 * Where a sweep's time goes. Lanes run batches side by side, so phase times are lane-seconds: they
 * add up to the wall time multiplied by the lanes in use, and each phase's share of that sum says
 * where a batch waits.
 */
export class Timings {
  readonly phases: Record<Phase, number> = { start: 0, launch: 0, park: 0, kill: 0, finish: 0, count: 0 };
  /** The wait of every resumed run: from its generation's go to the run's first point there, in ms. */
  private readonly resumeWaits: number[] = [];
  /** CPU seconds of the worker generations, each read just before its SIGKILL. */
  workerCpu = 0;

  /** Times `fn` as `phase`. */
  async time<T>(phase: Phase, fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await fn();
    } finally {
      this.phases[phase] += (performance.now() - started) / 1000;
    }
  }

  /** Notes how long a resumed run waited for its first point (a dead attempt's timeout, mostly). */
  resumed(waitMs: number): void {
    this.resumeWaits.push(waitMs);
  }

  /** The median and the largest wait of a resumed run, in seconds; `null` with none. */
  resumeWait(): { median: number; max: number; count: number } | null {
    if (this.resumeWaits.length === 0) return null;
    const sorted = [...this.resumeWaits].sort((a, b) => a - b);
    return {
      median: sorted[Math.floor(sorted.length / 2)] / 1000,
      max: sorted[sorted.length - 1] / 1000,
      count: sorted.length,
    };
  }
}

/**
 * CPU seconds (user and system) a process has used so far, from `/proc`; `null` where there is no
 * `/proc` (not Linux) or the process is gone.
 */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return ticks / 100; // USER_HZ is 100 on every Linux Node runs on
  } catch {
    return null;
  }
}

/**
 * CPU seconds this process has used, with every child process it has waited for (and theirs that they
 * waited for): once a sweep has stopped what it started, every process of it. `null` without `/proc`.
 */
export function cpuWithEndedChildren(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

/** The processes whose parent is `pid` (Linux), for finding a server a wrapper started. */
export function childPids(pid: number): number[] {
  try {
    const out: number[] = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid === pid) out.push(Number(entry));
      } catch {
        // gone meanwhile
      }
    }
    return out;
  } catch {
    return [];
  }
}

/** Where a sweep's time and CPU went, in a few lines for people. */
export function formatTimings(report: {
  seconds: number;
  scenarios: unknown[];
  timings: Timings;
  cpu: { harness: number; server: number | null; workers: number; everyProcess: number | null };
}): string {
  const { timings, cpu } = report;
  const total = Object.values(timings.phases).reduce((a, b) => a + b, 0);
  const phases = (Object.keys(PHASES) as Phase[])
    .map(
      (p) =>
        `${p} ${timings.phases[p].toFixed(0)} s (${((100 * timings.phases[p]) / Math.max(total, 1e-9)).toFixed(0)}%)`,
    )
    .join(', ');
  const wait = timings.resumeWait();
  const cores = cpu.harness + (cpu.server ?? 0) + cpu.workers;
  const n = Math.max(report.scenarios.length, 1);
  return [
    `time by phase (lane-seconds): ${phases}`,
    wait
      ? `resumed runs waited for their first point: median ${wait.median.toFixed(2)} s, max ${wait.max.toFixed(2)} s (${wait.count} resumes)`
      : '',
    `CPU: ${cores.toFixed(0)} core-seconds, ${(cores / n).toFixed(3)} per scenario (workers ${cpu.workers.toFixed(0)}, Temporal server ${cpu.server === null ? '?' : cpu.server.toFixed(0)}, harness ${cpu.harness.toFixed(0)}); machine use ${((100 * cores) / (report.seconds * CORES)).toFixed(0)}% of ${CORES} cores${cpu.everyProcess !== null ? `; every process of the sweep (receivers, hosts and what each started, too): ${cpu.everyProcess.toFixed(0)} core-seconds` : ''}`,
  ]
    .filter(Boolean)
    .join('\n');
}
