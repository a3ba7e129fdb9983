// One batch of scenarios: its runs, its worker generations, the kills between them, and the counts at the end.
import type { Client } from '@temporalio/client';
import type { CrashPlan, KillTarget } from '../worker/line-protocol';
import { Generation, type GenerationEnv } from './generation';
import type { RanScenario, Scenario } from './scenario';
import type { SweepServer } from '../hosts/sweep-server';
import type { BatchPlan, SuiteRun, SweepSuite } from './suite';
import type { BatchTemporal } from '../hosts/killable-server-host';
import { cpuSeconds, type CpuPart, type Phase, type Timings } from './timings';
import { batchFaultsOf, nextBuildOf, runFaultOf, serverDeathOf } from '../faults';
import { resultOfRun, startRuns, waitForRuns, type Running, type RunWatch } from './runs';
import { atKill, checkLandings, endRound } from './round-end';
import { watchForStuck } from './stuck-watch';
import { countBatch } from './batch-counts';

/** What one batch needs besides its scenarios. */
export interface BatchContext {
  server: SweepServer;
  /** The Temporal server the batch's runs live on: the sweep's own, or one it kills (rows with `serverDies`). */
  temporal: BatchTemporal;
  suite: SweepSuite;
  timings: Timings;
  /** The lane the batch runs in (a suite may keep per-lane resources, as the agent's MCP servers). */
  lane: number;
  /** The batch's own task queue, so that batches in other lanes never take its tasks. */
  taskQueue: string;
  /** Counts generations (for the label of plan files). */
  counter: { generations: number };
  /** Called with a line of progress now and then: what a batch that waits long waits for. */
  progress?: (line: string) => void;
  /** By row: the points only a worker process's first run reaches, which no run counts (`clean-twice.ts`). */
  setupPoints?: ReadonlyMap<string, readonly string[]>;
  /** How long to wait, once the runs are parked, before the kill (see `SweepOptions.lateKillMs`). Default 0. */
  lateKillMs?: number;
}

/** What a suite knows of a scenario's run. */
export function suiteRun(s: Scenario, taskQueue: string, client: Client): SuiteRun {
  return { row: s.row, workflowId: s.workflowId, runId: s.runId, tag: s.tag, taskQueue, client };
}

/** Where the generations of a task queue find the server, and how they start. */
export function generationEnv(
  temporal: Pick<BatchTemporal, 'address' | 'namespace'>,
  dir: string,
  suite: SweepSuite,
  taskQueue: string,
  plan: BatchPlan = {},
): GenerationEnv {
  return {
    temporalAddress: temporal.address,
    namespace: temporal.namespace,
    taskQueue,
    dir,
    worker: { ...suite.worker, env: { ...suite.worker.env, ...plan.env } },
  };
}

/**
 * Runs one batch: every run is started; each killed generation parks every run at its own point, and
 * then it dies by one SIGKILL; or, in rows whose server dies (`serverDies`), the Temporal server does
 * and comes back on its file, with the worker killed while it is down (`worker-dies`) or left alive to
 * resume its parked runs (`worker-survives`). A last generation runs them all to the end. Each
 * generation is launched while the one before it still works, so a kill is followed at once by a
 * worker that is already loaded. A kill that did not land on its expected point marks the scenario as
 * an error, never a pass.
 */
export async function runBatch(plans: readonly Scenario[], ctx: BatchContext): Promise<RanScenario[]> {
  const batch: Running[] = plans.map((p) => ({ ...p, landed: [], finalPoints: [] }));
  const serverDies = serverDiesIn(batch, ctx.temporal);
  const runsOf = new Map(batch.map((s) => [s.workflowId, suiteRun(s, ctx.taskQueue, ctx.temporal.client)]));
  const plan = ctx.suite.batch ? await ctx.suite.batch(ctx.lane, [...runsOf.values()]) : {};
  return new BatchRun(batch, ctx, serverDies, runsOf, plan).run();
}

/**
 * Whether, and how, the Temporal server of a batch dies (`serverDies`): the same for every row of it,
 * as is the build its later rounds run (the engine batches rows apart on both).
 */
function serverDiesIn(batch: Running[], temporal: BatchTemporal): ReturnType<typeof serverDeathOf> {
  const serverDies = serverDeathOf(batch[0].row);
  if (batch.some((s) => serverDeathOf(s.row) !== serverDies))
    throw new Error('a batch mixes rows whose Temporal server dies with rows whose server does not');
  if (serverDies && !temporal.restart)
    throw new Error(`rows whose Temporal server dies need a server the sweep may kill, not ${temporal.address}`);
  const build = nextBuildOf(batch[0].row);
  if (batch.some((s) => nextBuildOf(s.row) !== build))
    throw new Error('a batch mixes rows of different builds: the engine batches them apart');
  return serverDies;
}

/** A batch while it runs: its generations, launched one per round, and its runs' ends. */
class BatchRun {
  private readonly generations: Generation[] = [];
  private readonly env: GenerationEnv;
  /** Faults of the rows that hold for the whole batch (a deploy mid-run). */
  private readonly batchFaults: ReturnType<typeof batchFaultsOf>;
  /** By run: a point where its tool calls throw, and the setup points its workers never count. */
  private readonly faults: NonNullable<CrashPlan['faults']>;
  private readonly uncounted: NonNullable<CrashPlan['uncounted']>;
  /** Whether the batch is clean runs only: their CPU is counted apart. */
  private readonly clean: boolean;
  private runs!: RunWatch;

  constructor(
    private readonly batch: Running[],
    private readonly ctx: BatchContext,
    private readonly serverDies: ReturnType<typeof serverDeathOf>,
    private readonly runsOf: Map<string, SuiteRun>,
    private readonly plan: BatchPlan,
  ) {
    this.env = generationEnv(ctx.temporal, ctx.server.dir, ctx.suite, ctx.taskQueue, plan);
    this.batchFaults = batchFaultsOf(batch[0].row);
    this.clean = batch.every((s) => s.pass === 'clean');
    this.faults = Object.fromEntries(
      batch.flatMap((s) => {
        const point = s.row.faults?.find((f) => f.inWorker?.throwAt)?.inWorker?.throwAt;
        return point ? [[s.workflowId, { name: point }]] : [];
      }),
    );
    this.uncounted = Object.fromEntries(
      batch.flatMap((s) => {
        const setup = ctx.setupPoints?.get(s.row.name);
        const ids = { workflowId: s.workflowId, runId: s.runId, tag: s.tag };
        return setup?.length ? [[s.workflowId, { ids, points: [...setup] }]] : [];
      }),
    );
  }

  /** Starts the runs, kills them round by round, runs them to their end and counts what they did. */
  async run(): Promise<RanScenario[]> {
    const { timings, temporal, suite } = this.ctx;
    const rounds = Math.max(...this.batch.map((s) => s.kills.length));
    // The first generation loads while the runs are being started.
    let next = this.launch(0);
    try {
      for (const f of this.batchFaults) await f.beforeRuns?.(this.atRound(0));
      this.runs = await timings.time(
        'start',
        () => startRuns(this.batch, temporal.client, suite, this.runsOf),
        this.part('start'),
      );
      for (let round = 0; round < rounds; round++) next = await this.killRound(round, next);
      await this.finish(next);
    } finally {
      await Promise.all(this.generations.map((g) => g.kill()));
    }
    this.noteResumes();
    await timings.time(
      'count',
      () => countBatch(this.batch, temporal.client, suite, this.runsOf, this.generations, this.runs),
      this.part('count'),
    );
    return this.batch.map(resultOfRun);
  }

  /**
   * Round `round`: `gen` goes, the runs it must kill park at their points, and it dies (or the server
   * does); returns the generation that takes the runs over, launched while this one still worked.
   */
  private async killRound(round: number, gen: Generation): Promise<Generation> {
    const { timings, temporal } = this.ctx;
    const killed = this.batch.filter((s) => !s.error && s.kills.length > round);
    await this.go(gen);
    const workerDies = this.serverDies !== 'worker-survives';
    const next = workerDies ? this.launch(round + 1) : gen;
    const late = await timings.time(
      'park',
      () =>
        this.waitWhile(
          gen,
          () => killed.filter((s) => !gen.parked.has(s.workflowId) && !this.runs.ended.has(s.workflowId)),
          120_000,
          `reach kill ${round + 1}`,
        ),
      this.part('park', round),
    );
    for (const s of late)
      s.error = `kill ${round + 1} never landed: the run did not reach ${JSON.stringify(s.kills[round])} in time`;
    // A busy machine's late kill, when a test asks for one: the parked runs wait in a live worker.
    if (this.ctx.lateKillMs) await new Promise((resolve) => setTimeout(resolve, this.ctx.lateKillMs));
    // The generation loaded ahead connects to the server (and checks its namespace) as it starts: a
    // server killed before then would make it exit. Once connected, it reconnects to the restarted one.
    if (this.serverDies && next !== gen) await timings.time('launch', () => next.ready, this.part('launch'));
    await timings.time(
      'kill',
      async () => {
        const unfinished = () => this.batch.filter((s) => !this.runs.ended.has(s.workflowId));
        await endRound(gen, this.serverDies, temporal, timings, unfinished);
        // What a fault does to each run that was killed at its point (a reset, a failure for a retry).
        const operated = killed.filter(
          (s) => runFaultOf(s.row) && gen.parked.has(s.workflowId) && !this.runs.ended.has(s.workflowId),
        );
        await atKill(operated, temporal.client, round);
        // What a fault does to the batch as a whole, before the next generation polls (a deploy).
        for (const f of this.batchFaults) await f.afterKill?.(this.atRound(round));
      },
      this.part('kill'),
    );
    checkLandings(killed, gen, round);
    if (!workerDies) gen.resume(this.targetsOf(round + 1));
    return next;
  }

  /** The last generation runs every run to its end; a run that can never finish is found stuck and ended. */
  private async finish(last: Generation): Promise<void> {
    const { timings, temporal, suite } = this.ctx;
    await this.go(last);
    await timings.time(
      'finish',
      async () => {
        // No kill is left to come: a run that keeps failing the same way now never finishes.
        const watch = watchForStuck(this.batch, this.runs, temporal.client, suite.waitingRunsStuck ?? false);
        try {
          const unfinished = await this.waitWhile(
            last,
            () => this.batch.filter((s) => !this.runs.ended.has(s.workflowId) && !s.stuck),
            300_000,
            'finish',
          );
          for (const s of unfinished) s.error ??= 'the run did not finish within 5 minutes of its last restart';
        } finally {
          await watch.stop();
        }
        await suite.settle?.();
      },
      this.part('finish'),
    );
    timings.workerCpu += cpuSeconds(last.pid) ?? 0;
    await last.kill();
  }

  /** Lets a generation that is not polling yet take tasks, once it is loaded. */
  private async go(gen: Generation): Promise<void> {
    if (gen.goAt) return;
    await this.ctx.timings.time('launch', () => gen.ready, this.part('launch'));
    gen.go();
  }

  /** Launches round `round`'s generation: a worker process told what to kill, fail and leave uncounted. */
  private launch(round: number): Generation {
    this.ctx.counter.generations += 1;
    const plan: CrashPlan = {
      targets: this.targetsOf(round),
      faults: this.faults,
      uncounted: this.uncounted,
      operated: this.operatedAt(round),
    };
    const gen = new Generation(this.envOf(round), plan, String(this.ctx.counter.generations));
    gen.onEvent((workflowId, event) => {
      const run = this.runsOf.get(workflowId);
      if (run && (event.type === 'point' || event.type === 'parked')) this.ctx.suite.onPoint?.(run, event);
    });
    this.generations.push(gen);
    return gen;
  }

  /** Where round `round`'s generation kills each run that has a kill left. */
  private targetsOf(round: number): Record<string, KillTarget> {
    const targets: Record<string, KillTarget> = {};
    for (const s of this.batch) if (!s.error && s.kills.length > round) targets[s.workflowId] = s.kills[round];
    return targets;
  }

  /** The runs the engine fails for their retry policy, or cancels, at the kill before a round's generation. */
  private operatedAt(round: number): NonNullable<CrashPlan['operated']> {
    const operated: NonNullable<CrashPlan['operated']> = {};
    for (const s of this.batch) {
      const kind = s.row.faults?.find((f) => f.inWorker?.operated)?.inWorker?.operated;
      if (round > 0 && s.kills.length >= round && kind) operated[s.workflowId] = kind;
    }
    return operated;
  }

  /** A round's worker environment: the batch's, with what the batch's faults add (a deploy's build). */
  private envOf(round: number): GenerationEnv {
    const extra: Record<string, string> = {};
    for (const f of this.batchFaults) Object.assign(extra, f.workerEnv?.(this.atRound(round)));
    const { env } = this;
    return { ...env, worker: { ...env.worker, env: { ...env.worker.env, ...extra } } };
  }

  private atRound(round: number) {
    return { client: this.ctx.temporal.client, taskQueue: this.ctx.taskQueue, round };
  }

  /** What a phase's CPU goes to: the clean runs apart, and a park before the first kill (the prefix) apart from a later one. */
  private part(phase: Phase, round = 0): CpuPart {
    return this.clean ? 'clean' : phase !== 'park' ? phase : round === 0 ? 'prefix' : 'between';
  }

  /** Waits while `pending` names runs; a batch that waits long says what for, every 15 s: which runs, and the last point each reached. */
  private waitWhile(gen: Generation, pending: () => Running[], ms: number, what: string): Promise<Running[]> {
    return waitForRuns(gen, this.plan, this.runs, pending, ms, (waiting, seconds) => {
      const named = waiting.slice(0, 3).map((s) => {
        const last = gen.points.get(s.workflowId)?.at(-1);
        return `${s.id}${last ? ` (last at ${last.name} ${last.detail})` : ' (no point yet)'}`;
      });
      const more = waiting.length > 3 ? `, and ${waiting.length - 3} more` : '';
      this.ctx.progress?.(
        `lane ${this.ctx.lane + 1}: waiting ${seconds} s for ${waiting.length} run(s) to ${what}: ${named.join(', ')}${more}`,
      );
    });
  }

  /** How long each later generation took to resume each run: the timings' resume figures. */
  private noteResumes(): void {
    for (const gen of this.generations.slice(1)) {
      for (const s of this.batch) {
        const first = gen.firstEventAt.get(s.workflowId);
        if (first && gen.goAt) this.ctx.timings.resumed(first - gen.goAt);
      }
    }
  }
}
