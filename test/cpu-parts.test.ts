// What a sweep's CPU went to: every process under the sweep, by part, and the bound it puts on forking.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { forkGainBound, formatCpuParts, Timings, treeCpuSeconds } from '../sweep/engine/timings';

/** The script of a child that spins until it has used `ms` of CPU (however busy the machine), and exits. */
const spinning = (ms: number) => `while (process.cpuUsage().user < ${ms * 1000});`;

/** A child process that uses `ms` of CPU and exits. */
async function spin(ms: number): Promise<void> {
  const child = spawn(process.execPath, ['-e', spinning(ms)]);
  await once(child, 'exit');
}

describe('the CPU of every process of a sweep', () => {
  it('counts a child that worked and was waited for, and one still working', async () => {
    const before = treeCpuSeconds();
    expect(before).not.toBeNull();
    await spin(350);
    const afterEnded = treeCpuSeconds()!;
    // The ended child's 0.4 s are in this process's waited-for children's time (ticks of 10 ms).
    expect(afterEnded - before!).toBeGreaterThanOrEqual(0.3);

    const child = spawn(process.execPath, ['-e', spinning(20_000)]);
    try {
      // Alive, not yet waited for: counted from its own /proc entry, as soon as it has worked.
      const deadline = Date.now() + 15_000;
      while (treeCpuSeconds()! - afterEnded < 0.3 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(treeCpuSeconds()! - afterEnded).toBeGreaterThanOrEqual(0.3);
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });

  it('puts a timed phase’s CPU into its part, and a park into the prefix unless told otherwise', async () => {
    const timings = new Timings();
    await timings.time('park', () => spin(150));
    await timings.time('park', () => spin(150), 'between');
    await timings.time('finish', () => spin(300));
    expect(timings.cpuParts.prefix).toBeGreaterThanOrEqual(0.1);
    expect(timings.cpuParts.between).toBeGreaterThanOrEqual(0.1);
    expect(timings.cpuParts.finish).toBeGreaterThanOrEqual(0.25);
    expect(timings.cpuPartsOverlapped).toBe(false);
    expect(timings.phases.park).toBeGreaterThanOrEqual(0.25);
  });

  it('says parts are mixed where phases ran at once (lanes side by side)', async () => {
    const timings = new Timings();
    await Promise.all([timings.time('park', () => spin(100)), timings.time('finish', () => spin(100))]);
    expect(timings.cpuPartsOverlapped).toBe(true);
    expect(formatCpuParts(timings)).toMatch(/lanes overlapped, so the parts are mixed/);
    expect(formatCpuParts(timings)).not.toMatch(/at most/);
  });

  it("bounds what forking could gain by what is left without each run's way to its last kill", () => {
    const timings = new Timings();
    Object.assign(timings.cpuParts, { clean: 10, start: 10, prefix: 20, between: 10, kill: 5, finish: 40, count: 5 });
    // 100 core-seconds in all; without start, prefix and between, 60 are left: at most 100/60 times as fast.
    expect(forkGainBound(timings)).toBeCloseTo(100 / 60, 5);
    expect(formatCpuParts(timings)).toBe(
      'CPU by part (core-seconds, every process of the sweep): clean 10, start 10, prefix 20 (20%), between 10, kill 5, finish 40 (40%), count 5; ' +
        "a fork that skipped each run's way to its last kill (start, prefix, between) at no cost would leave the rest: at most 1.67 times as fast by CPU",
    );
    expect(formatCpuParts(new Timings())).toBe('');
    expect(forkGainBound(new Timings())).toBeNull();
  });
});
