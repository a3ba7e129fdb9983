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
 * What the CPU of every process of a sweep went to (`Timings.cpuParts`): the phases of the batches
 * that kill, with the park before the first kill (the prefix: a fresh run from its start to its
 * point) apart from a park after a kill, and the clean runs' batches on their own.
 */
export const CPU_PARTS = {
  clean: 'the clean runs (every phase of their batches)',
  start: PHASES.start,
  launch: PHASES.launch,
  /** The next worker generation loads meanwhile: a fork would still need it, so a bound read from this is generous. */
  prefix: 'running each fresh run to its first crash point',
  between: 'running each restart to its second crash point',
  kill: PHASES.kill,
  finish: PHASES.finish,
  count: PHASES.count,
} as const;

/** The name of a CPU part. */
export type CpuPart = keyof typeof CPU_PARTS;

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
  /**
   * CPU seconds of every process of the sweep (`treeCpuSeconds`) by part, read as each timed phase
   * begins and ends; empty where there is no `/proc`. Only where phases never overlapped
   * (`cpuPartsOverlapped` false: one lane) does each part hold its own processes' work alone.
   */
  readonly cpuParts: Partial<Record<CpuPart, number>> = {};
  /** Whether two timed phases ever ran at once (lanes side by side): then `cpuParts` mixes them. */
  cpuPartsOverlapped = false;
  private inFlight = 0;

  /** Times `fn` as `phase`, and its CPU (every process's) as `part` (by default the phase's own; a park's: the prefix). */
  async time<T>(phase: Phase, fn: () => Promise<T>, part: CpuPart = phase === 'park' ? 'prefix' : phase): Promise<T> {
    const started = performance.now();
    const cpuBefore = treeCpuSeconds();
    this.inFlight += 1;
    if (this.inFlight > 1) this.cpuPartsOverlapped = true;
    try {
      return await fn();
    } finally {
      this.inFlight -= 1;
      this.phases[phase] += (performance.now() - started) / 1000;
      const cpuAfter = cpuBefore === null ? null : treeCpuSeconds();
      if (cpuBefore !== null && cpuAfter !== null)
        this.cpuParts[part] = (this.cpuParts[part] ?? 0) + Math.max(0, cpuAfter - cpuBefore);
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

/** What `/proc/PID/stat` says of a process: its parent, its own CPU ticks and its waited-for children's. */
interface ProcStat {
  ppid: number;
  /** `utime + stime`. */
  own: number;
  /** `cutime + cstime`: the children (and theirs) it has waited for. */
  children: number;
}

/** A process's `/proc/PID/stat` (`self` for this one); `null` where there is no `/proc` or it is gone. */
function procStat(pid: number | 'self'): ProcStat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
  } catch {
    return null;
  }
}

/** Every process's stat, by pid; `null` without `/proc`. */
function allProcStats(): Map<number, ProcStat> | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  const stats = new Map<number, ProcStat>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry)); // null: gone meanwhile
    if (stat) stats.set(Number(entry), stat);
  }
  return stats;
}

/** USER_HZ is 100 on every Linux Node runs on. */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user and system) a process has used so far, from `/proc`; `null` where there is no
 * `/proc` (not Linux) or the process is gone.
 */
export function cpuSeconds(pid: number): number | null {
  const stat = procStat(pid);
  return stat && stat.own / TICKS_PER_SECOND;
}

/**
 * CPU seconds this process has used, with every child process it has waited for (and theirs that they
 * waited for): once a sweep has stopped what it started, every process of it. `null` without `/proc`.
 */
export function cpuWithEndedChildren(): number | null {
  const stat = procStat('self');
  return stat && (stat.own + stat.children) / TICKS_PER_SECOND;
}

/**
 * CPU seconds used so far by a process (by default this one) and every process under it, alive or
 * ended: each live process's own time and its waited-for children's, so that a SIGKILLed worker,
 * once waited for, stays counted in its parent. A process that is waited for between two reads of
 * the walk may be missed or counted twice (a few milliseconds). `null` without `/proc`, or with the
 * process gone.
 */
export function treeCpuSeconds(root = process.pid): number | null {
  const stats = allProcStats();
  if (!stats?.has(root)) return null;
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of stats) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  let ticks = 0;
  const todo = [root];
  while (todo.length > 0) {
    const pid = todo.pop()!;
    const stat = stats.get(pid);
    ticks += stat ? stat.own + stat.children : 0;
    todo.push(...(children.get(pid) ?? []));
  }
  return ticks / TICKS_PER_SECOND;
}

/** The processes whose parent is `pid` (Linux), for finding a server a wrapper started. */
export function childPids(pid: number): number[] {
  return [...(allProcStats() ?? new Map<number, ProcStat>())].filter(([, s]) => s.ppid === pid).map(([p]) => p);
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
    formatCpuParts(timings),
    wait
      ? `resumed runs waited for their first point: median ${wait.median.toFixed(2)} s, max ${wait.max.toFixed(2)} s (${wait.count} resumes)`
      : '',
    `CPU: ${cores.toFixed(0)} core-seconds, ${(cores / n).toFixed(3)} per scenario (workers ${cpu.workers.toFixed(0)}, Temporal server ${cpu.server === null ? '?' : cpu.server.toFixed(0)}, harness ${cpu.harness.toFixed(0)}); machine use ${((100 * cores) / (report.seconds * CORES)).toFixed(0)}% of ${CORES} cores${cpu.everyProcess !== null ? `; every process of the sweep (receivers, hosts and what each started, too): ${cpu.everyProcess.toFixed(0)} core-seconds` : ''}`,
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * The CPU of every process of the sweep by part, and what it bounds ({@link forkGainBound}): a sweep
 * that forked each scenario instead of running its way to its last kill again would still pay for
 * everything else. Empty without `/proc`; said as mixed where lanes overlapped.
 */
export function formatCpuParts(timings: Timings): string {
  const parts = timings.cpuParts;
  const total = Object.values(parts).reduce((a, b) => a + b, 0);
  if (total <= 0) return '';
  const named = (Object.keys(CPU_PARTS) as CpuPart[])
    .filter((p) => parts[p] !== undefined)
    .map(
      (p) =>
        `${p} ${parts[p]!.toFixed(0)}${p === 'prefix' || p === 'finish' ? ` (${((100 * parts[p]!) / total).toFixed(0)}%)` : ''}`,
    )
    .join(', ');
  if (timings.cpuPartsOverlapped)
    return `CPU by part (core-seconds, lanes overlapped, so the parts are mixed): ${named}`;
  const bound = forkGainBound(timings);
  const said =
    bound !== null
      ? `; a fork that skipped each run's way to its last kill (start, prefix, between) at no cost would leave the rest: at most ${bound.toFixed(2)} times as fast by CPU`
      : '';
  return `CPU by part (core-seconds, every process of the sweep): ${named}${said}`;
}

/**
 * The most a sweep that forked every scenario could gain by CPU, had the forks cost nothing: a
 * first-pass scenario forked from its clean run at its point, a second-pass one from its first
 * restart at its second point. Its CPU over what is left without the runs' starts, their prefixes and
 * a restart's way to its second kill. `null` where the parts were not measured apart (no `/proc`,
 * lanes overlapped) or no run was killed.
 */
export function forkGainBound(timings: Timings): number | null {
  const parts = timings.cpuParts;
  const total = Object.values(parts).reduce((a, b) => a + b, 0);
  const forkable = (parts.start ?? 0) + (parts.prefix ?? 0) + (parts.between ?? 0);
  if (timings.cpuPartsOverlapped || !parts.prefix || total <= forkable) return null;
  return total / (total - forkable);
}
