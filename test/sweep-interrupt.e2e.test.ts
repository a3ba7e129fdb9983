// A sweep that is interrupted ends every process it started: its worker generations, its receivers
// and its Temporal servers. Killed outright (SIGKILL, which runs no handler), its generations end by
// themselves as their stdin closes.
import { readFileSync } from 'node:fs';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { devServerExecutable } from '../common/temporal-cli';
import { childPids } from '../sweep/engine/timings';
import { startChild, type Child } from './helpers/processes';

/** Every process below `pid`, children first. */
function descendants(pid: number): number[] {
  return childPids(pid).flatMap((c) => [c, ...descendants(c)]);
}

/** Whether a process runs (a zombie has ended: it only waits for its parent to read its status). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** A worker generation of a sweep: the engine starts each with `CRASH_STANDBY=1`. */
function isGeneration(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes('CRASH_STANDBY=1');
  } catch {
    return false;
  }
}

async function until(ok: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!ok() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return ok();
}

/** A sweep of the agent's row, once its first pass has worker generations running. */
async function sweepUnderWay(args: string[] = []): Promise<{ sweep: Child; started: number[] }> {
  const sweep = startChild('agent-sweep/crash-sweep.ts', ['--variant', 'agent', ...args]);
  await sweep.waitFor(/clean runs: agent \d+ points/, 120_000);
  let started: number[] = [];
  // The generation at work and the next one, loaded ahead on standby (it polls nothing, prints nothing).
  await until(() => (started = descendants(sweep.proc.pid!)).filter(isGeneration).length >= 2, 20_000);
  expect(started.filter(isGeneration).length).toBeGreaterThanOrEqual(2);
  return { sweep, started };
}

describe('an interrupted sweep', () => {
  test('SIGTERM: the sweep exits 143 and every process it started ends with it', async () => {
    const { sweep, started } = await sweepUnderWay();
    try {
      sweep.proc.kill('SIGTERM');
      const code = await new Promise<number | null>((r) => sweep.proc.once('exit', (c) => r(c)));
      expect(code).toBe(143);
      expect(sweep.output()).toContain('SIGTERM: the sweep stops, and every process it started with it');
      expect(await until(() => started.every((p) => !alive(p)), 15_000)).toBe(true);
    } finally {
      for (const p of started.filter(alive)) process.kill(p, 'SIGKILL');
    }
  }, 180_000);

  test('SIGKILL: its worker generations end by themselves, on a Temporal server that lives on', async () => {
    // On the sweep's own dev server a generation might also end as its server goes; on a cluster of
    // the user's (--address) the server stays, and the closed stdin tells a generation no one is left.
    const server = await TestWorkflowEnvironment.createLocal({
      server: { executable: devServerExecutable(), log: { format: 'pretty', level: 'error' } },
    });
    const { sweep, started } = await sweepUnderWay(['--address', server.address]).catch(async (err: Error) => {
      await server.teardown();
      throw err;
    });
    const generations = started.filter(isGeneration);
    try {
      await sweep.kill('SIGKILL');
      expect(await until(() => generations.every((p) => !alive(p)), 15_000)).toBe(true);
    } finally {
      // The rest (its dev server, which outlives a SIGKILLed parent) is this test's to end.
      for (const p of started.filter(alive)) process.kill(p, 'SIGKILL');
      await server.teardown();
    }
  }, 180_000);
});
