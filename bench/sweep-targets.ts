// The benchmark's targets, each met or missed, and for one that is missed what stands in its way:
// the sweep's CPU per scenario against the cores the machine has.

/** One sweep the benchmark measured. */
export interface Measured {
  scenarios: number;
  seconds: number;
  /** Core-seconds of every process of the sweep, per scenario. */
  cpuPerScenario: number;
  /**
   * The most forking could make it faster by CPU, had the forks cost nothing (`forkGainBound` in
   * `engine/timings.ts`); `null` where its CPU by part was not measured apart.
   */
  forkGainBound?: number | null;
}

/** What the targets are checked against: the clean-run limit (runs/s) and the machine's cores. */
export interface Machine {
  limitRunsPerSecond: number;
  cores: number;
}

/**
 * The targets on a 2-core machine: the agent's sweep at 0.6 of the limit, the first pass in 60 s, the
 * full sweep in 10 minutes, and a sweep that forks its scenarios 5 times as fast as the one that kills.
 */
export const TARGETS = { agentRatio: 0.6, firstPassSeconds: 60, fullSeconds: 600, forkedSpeedup: 5 } as const;

/** The best a sweep could do if it used every core all the time at its measured CPU per scenario. */
export function ceiling(m: Measured, machine: Machine): { scenariosPerSecond: number; seconds: number } {
  const scenariosPerSecond = machine.cores / m.cpuPerScenario;
  return { scenariosPerSecond, seconds: m.scenarios / scenariosPerSecond };
}

/**
 * A line per target: met or missed, with the figure; for a missed one, whether it is out of reach at
 * the measured CPU per scenario even with every core busy (the CPU must fall) or within it (the sweep
 * waits: idle cores could close the gap).
 */
export function targetLines(
  machine: Machine,
  sweeps: { agent: Measured; firstPass: Measured | null; full: Measured | null },
): string[] {
  const why = (m: Measured, reached: boolean, verdict: string) => {
    if (reached) return 'met';
    const c = ceiling(m, machine);
    return `missed; at ${m.cpuPerScenario.toFixed(3)} core-s per scenario on ${machine.cores} cores the sweep could reach at most ${c.scenariosPerSecond.toFixed(1)} scenarios/s (${c.seconds.toFixed(0)} s), ${verdict}`;
  };
  const lines: string[] = [];
  const { agent, firstPass, full } = sweeps;
  const ratio = agent.scenarios / agent.seconds / machine.limitRunsPerSecond;
  const agentCeiling = ceiling(agent, machine).scenariosPerSecond / machine.limitRunsPerSecond;
  lines.push(
    `agent ratio >= ${TARGETS.agentRatio}: ${ratio.toFixed(2)}, ${why(agent, ratio >= TARGETS.agentRatio, `a ratio of ${agentCeiling.toFixed(2)}: ${agentCeiling < TARGETS.agentRatio ? 'out of reach until a scenario costs less CPU' : 'within reach: the sweep waits with cores idle'}`)}`,
  );
  for (const [name, m, target] of [
    ['first pass', firstPass, TARGETS.firstPassSeconds],
    ['full sweep', full, TARGETS.fullSeconds],
  ] as const) {
    if (!m) {
      lines.push(`${name} <= ${target} s: not measured in this run`);
      continue;
    }
    const best = ceiling(m, machine).seconds;
    lines.push(
      `${name} <= ${target} s: ${m.seconds.toFixed(0)} s, ${why(m, m.seconds <= target, best > target ? 'out of reach until a scenario costs less CPU' : 'within reach: the sweep waits with cores idle')}`,
    );
  }
  lines.push(forkLine(full ?? firstPass));
  return lines;
}

/**
 * The forked sweep's target. No sweep forks its scenarios, so what is measured is its bound: the most
 * a fork that cost nothing could gain, from the CPU by part of the largest sweep measured.
 */
function forkLine(m: Measured | null): string {
  const head = `forked >= ${TARGETS.forkedSpeedup}x the killing sweep: no sweep forks its scenarios`;
  const bound = m?.forkGainBound ?? null;
  if (bound === null) return `${head}; its bound was not measured in this run (lanes overlapped, or no /proc)`;
  return `${head}; by this sweep's CPU by part, forks that cost nothing would make it at most ${bound.toFixed(2)}x as fast: ${bound < TARGETS.forkedSpeedup ? 'out of reach by forking' : 'within reach by forking'}`;
}
