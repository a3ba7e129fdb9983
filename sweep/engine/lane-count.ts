// How many lanes a sweep runs when it chooses them itself (`--lanes auto`, the default): from the
// cores the machine leaves idle while the sweep runs, as pure rules, and a meter of those idle cores.
import os from 'node:os';

/**
 * The cores one lane keeps busy: a lane's worker generations, its share of the Temporal server and
 * the harness. Measured on 2 cores, one lane used 75 to 81% of both (docs/benchmarks.md), and two
 * lanes there were slower than one and made live tasks time out.
 */
export const LANE_CORES = 1.5;

/** Below this many idle cores, a lane beyond the first takes no new batch: the machine has none to spare. */
export const SATURATED_CORES = 0.25;

/** How often the sweep looks at the machine's idle cores, and the window it measures them over. */
export const LANE_CHECK_MS = 5_000;

/** The most lanes a sweep starts by itself on a machine of `cores` cores: one per {@link LANE_CORES}, at least one. */
export function laneLimit(cores: number): number {
  return Math.max(1, Math.floor(cores / LANE_CORES));
}

/**
 * Whether to start one more lane: the limit is not reached, a batch waits for a lane, and the cores
 * left idle over the last window would keep a whole lane busy (other work on the machine counts too).
 */
export function shouldAddLane(state: {
  running: number;
  cores: number;
  idleCores: number;
  batchesWaiting: number;
}): boolean {
  return state.running < laneLimit(state.cores) && state.batchesWaiting > 0 && state.idleCores >= LANE_CORES;
}

/** Whether a lane beyond the first ends instead of taking another batch: the machine has no core to spare. */
export function shouldDropLane(state: { lane: number; idleCores: number }): boolean {
  return state.lane > 0 && state.idleCores < SATURATED_CORES;
}

/** The machine's idle cores between two readings, from the kernel's idle time of every core (all processes count). */
export class IdleMeter {
  private last = IdleMeter.read();

  private static read(): { idle: number; total: number } {
    let idle = 0;
    let total = 0;
    for (const cpu of os.cpus()) {
      idle += cpu.times.idle;
      total += cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq + cpu.times.idle;
    }
    return { idle, total };
  }

  /** Idle cores since the last call (or since the meter was made): 0 to the number of cores. */
  sample(): number {
    const now = IdleMeter.read();
    const total = now.total - this.last.total;
    const idle = now.idle - this.last.idle;
    this.last = now;
    return total > 0 ? (idle / total) * os.cpus().length : 0;
  }
}
