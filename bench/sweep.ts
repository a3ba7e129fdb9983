// `npm run bench`: how close the sweep comes to the machine's limit, measured in one run.
import { readFileSync } from 'node:fs';
import { Worker } from '@temporalio/worker';
import { parseCommandLine, runMain, UsageError } from '../common/cli';
import { agentSuite } from '../agent-sweep/agent-suite';
import { measureLimit, type Limit } from './clean-run-limit';
import { runSweep, type SweepReport } from '../sweep/engine/passes';
import { forkGainBound, formatTimings } from '../sweep/engine/timings';
import { selectRows } from '../agent-sweep/rows';
import { startWorld, type World } from '../agent-sweep/world';
import { targetLines } from './sweep-targets';
import os from 'node:os';

const USAGE = 'npm run bench -- [--runs N] [--skip-full]';

/**
 * `npm run bench`: how close the sweep comes to the machine's limit, from one run on this machine.
 *
 * 1. limit: clean agent runs per second that the sweep's dev server and one worker process sustain
 *    with no kill at all, and the CPU each costs; and the CPU of replaying one whole history, which a
 *    restart pays for every run it resumes and a clean run never does;
 * 2. sweep: scenarios per second of `--variant agent`, of the first pass of every row (`npm run
 *    sweep`), then of the full sweep;
 * 3. the ratio sweep/limit, and where the sweep's time and CPU went;
 * 4. the targets (targets.ts), each met or missed, and for a missed one what stands in its way.
 *
 * A benchmark, not a test: it prints figures and asserts nothing about speed.
 */
async function main(): Promise<void> {
  const { values } = parseCommandLine(
    process.argv.slice(2),
    { runs: { type: 'string', default: '300' }, 'skip-full': { type: 'boolean', default: false } },
    USAGE,
  );
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 10)
    throw new UsageError(`bad --runs ${values.runs}: a whole number of clean runs, at least 10`, USAGE);
  const [agent] = selectRows('agent');
  const say = (line: string) => console.error(line);

  say(`limit: ${runs} clean agent runs on one worker, no kill...`);
  const world = await startWorld();
  let limit: Limit;
  let replay: { histories: number; cpuMs: number };
  try {
    limit = await measureLimit(world, agent, runs);
    replay = await measureReplay(world, 50);
  } finally {
    await world.close();
  }
  say(`limit: ${limit.runsPerSecond.toFixed(1)} runs/s`);

  say('sweep --variant agent...');
  const agentSweep = await runSweep({ suite: agentSuite([agent]), progress: (l) => say(`  ${l}`) });
  say('sweep, first pass of every row...');
  const firstPass = await runSweep({
    suite: agentSuite(selectRows()),
    twice: false,
    progress: (l) => say(`  ${l}`),
  });
  let full: SweepReport | null = null;
  if (!values['skip-full']) {
    say('full sweep...');
    full = await runSweep({ suite: agentSuite(selectRows()), progress: (l) => say(`  ${l}`) });
  }

  const rate = (r: SweepReport) => r.scenarios.length / r.seconds;
  const cpuPer = (r: SweepReport) => (r.cpu.harness + (r.cpu.server ?? 0) + r.cpu.workers) / r.scenarios.length;
  const limitCpu = limit.cpuPerRun.worker + (limit.cpuPerRun.server ?? 0) + limit.cpuPerRun.harness;
  const lines = [
    `limit   ${limit.runsPerSecond.toFixed(1)} clean runs/s (${limit.runs} runs in ${limit.seconds.toFixed(1)} s), ${limitCpu.toFixed(3)} core-s per run (worker ${limit.cpuPerRun.worker.toFixed(3)}, server ${limit.cpuPerRun.server?.toFixed(3) ?? '?'}, harness ${limit.cpuPerRun.harness.toFixed(3)})`,
    `replay  ${(replay.cpuMs / replay.histories).toFixed(0)} core-ms to replay one whole clean history (${replay.histories} replayed in-process)`,
    `agent   ${rate(agentSweep).toFixed(1)} scenarios/s (${agentSweep.scenarios.length} in ${agentSweep.seconds.toFixed(1)} s), ${cpuPer(agentSweep).toFixed(3)} core-s per scenario; ratio to the limit ${(rate(agentSweep) / limit.runsPerSecond).toFixed(2)}`,
    ...indent(formatTimings(agentSweep)),
    `first   ${rate(firstPass).toFixed(1)} scenarios/s (${firstPass.scenarios.length} in ${firstPass.seconds.toFixed(1)} s), ${cpuPer(firstPass).toFixed(3)} core-s per scenario; ratio to the limit ${(rate(firstPass) / limit.runsPerSecond).toFixed(2)}`,
    ...indent(formatTimings(firstPass)),
  ];
  if (full) {
    lines.push(
      `full    ${rate(full).toFixed(1)} scenarios/s (${full.scenarios.length} in ${full.seconds.toFixed(1)} s = ${(full.seconds / 60).toFixed(1)} min), ${cpuPer(full).toFixed(3)} core-s per scenario; ratio to the limit ${(rate(full) / limit.runsPerSecond).toFixed(2)}`,
      ...indent(formatTimings(full)),
    );
  }
  const measured = (r: SweepReport) => ({
    scenarios: r.scenarios.length,
    seconds: r.seconds,
    cpuPerScenario: cpuPer(r),
    forkGainBound: forkGainBound(r.timings),
  });
  lines.push(
    'targets',
    ...indent(
      targetLines(
        { limitRunsPerSecond: limit.runsPerSecond, cores: os.availableParallelism() },
        { agent: measured(agentSweep), firstPass: measured(firstPass), full: full ? measured(full) : null },
      ).join('\n'),
    ),
  );
  console.log(lines.join('\n'));
}

function indent(text: string): string[] {
  return text.split('\n').map((l) => `        ${l}`);
}

/**
 * CPU time of replaying whole histories in this process, as a restarted worker replays each run it
 * resumes: the clean runs of the limit, fetched and replayed with the sweep's workflow bundle.
 */
async function measureReplay(world: World, count: number): Promise<{ histories: number; cpuMs: number }> {
  const client = world.env.client;
  const ids: string[] = [];
  for await (const wf of client.workflow.list({
    query: `WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Completed'`,
  })) {
    ids.push(wf.workflowId);
    if (ids.length >= count) break;
  }
  const histories = await Promise.all(
    ids.map(async (workflowId) => ({
      workflowId,
      history: await client.workflow.getHandle(workflowId).fetchHistory(),
    })),
  );
  const bundle = { code: readFileSync(world.workflowBundle, 'utf8') };
  // Warm up once, so loading the bundle is not counted as replay.
  await Worker.runReplayHistory({ workflowBundle: bundle }, histories[0].history, histories[0].workflowId);
  const before = process.cpuUsage();
  for await (const result of Worker.runReplayHistories({ workflowBundle: bundle }, histories)) {
    if (result.error) throw new Error(`replaying ${result.workflowId} failed: ${result.error.message}`);
  }
  const used = process.cpuUsage(before);
  return { histories: histories.length, cpuMs: (used.user + used.system) / 1000 };
}

runMain(main);
