// The benchmark's verdicts on its targets, as pure logic: met, or missed with what stands in the way.
import { ceiling, targetLines } from '../bench/sweep-targets';

const machine = { limitRunsPerSecond: 10, cores: 2 };

describe("the benchmark's targets", () => {
  test('the ceiling is every core busy at the measured CPU per scenario', () => {
    expect(ceiling({ scenarios: 100, seconds: 50, cpuPerScenario: 0.5 }, machine)).toEqual({
      scenariosPerSecond: 4,
      seconds: 25,
    });
  });

  test('a target met says so; one missed says whether the CPU or the waiting stands in its way', () => {
    const lines = targetLines(machine, {
      // 6.5/s against a limit of 10: met.
      agent: { scenarios: 65, seconds: 10, cpuPerScenario: 0.2 },
      // 200 s; even with both cores busy, 0.1 core-s a scenario takes 100 s: out of reach.
      firstPass: { scenarios: 2000, seconds: 200, cpuPerScenario: 0.1 },
      full: null,
    });
    expect(lines).toEqual([
      'agent ratio >= 0.6: 0.65, met',
      'first pass <= 60 s: 200 s, missed; at 0.100 core-s per scenario on 2 cores the sweep could reach at most 20.0 scenarios/s (100 s), out of reach until a scenario costs less CPU',
      'full sweep <= 600 s: not measured in this run',
      'forked >= 5x the killing sweep: no sweep forks its scenarios; its bound was not measured in this run (lanes overlapped, or no /proc)',
    ]);
    const [agent] = targetLines(machine, {
      agent: { scenarios: 40, seconds: 10, cpuPerScenario: 0.25 },
      firstPass: null,
      full: null,
    });
    // 4/s, ratio 0.4; every core busy: 8/s, ratio 0.8.
    expect(agent).toBe(
      'agent ratio >= 0.6: 0.40, missed; at 0.250 core-s per scenario on 2 cores the sweep could reach at most 8.0 scenarios/s (5 s), a ratio of 0.80: within reach: the sweep waits with cores idle',
    );
  });

  test('the forked sweep is judged by the bound the largest sweep measured puts on forking', () => {
    const firstPass = { scenarios: 2000, seconds: 300, cpuPerScenario: 0.2, forkGainBound: 1.5 };
    const agent = { scenarios: 40, seconds: 10, cpuPerScenario: 0.25 };
    expect(targetLines(machine, { agent, firstPass, full: null }).at(-1)).toBe(
      "forked >= 5x the killing sweep: no sweep forks its scenarios; by this sweep's CPU by part, forks that cost nothing would make it at most 1.50x as fast: out of reach by forking",
    );
    const full = { scenarios: 9000, seconds: 3000, cpuPerScenario: 0.3, forkGainBound: 6 };
    expect(targetLines(machine, { agent, firstPass, full }).at(-1)).toMatch(
      /at most 6.00x as fast: within reach by forking$/,
    );
  });
});
