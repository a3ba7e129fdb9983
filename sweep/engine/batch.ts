// One batch of scenarios: its runs, its worker generations, the kills between them, and the counts at the end.
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, TerminatedFailure } from '@temporalio/common';
import { auditHistory, type GenerationRecord } from '../judge/audit';
import type { CrashPlan, KillTarget } from '../worker/line-protocol';
import { Generation, type GenerationEnv } from './generation';
import type { RanScenario, Scenario, ScenarioResult } from './scenario';
import type { SeenPoint } from './generation';
import type { SweepServer } from '../hosts/sweep-server';
import { fillCounts } from '../judge/counting';
import type { BatchPlan, SuiteRow, SuiteRun, SweepSuite } from './suite';
import type { BatchTemporal } from '../hosts/killable-server-host';
import { cpuSeconds, type CpuPart, type Phase, type Timings } from './timings';
import { describeStuck, findStuck, findTaskFailure, type QuietRuns } from '../judge/stuck';
import { batchFaultsOf, nextBuildOf, runFaultOf, serverDeathOf, toleranceOf } from '../faults';

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

/**
 * A scenario while its batch runs: its plan, and its result as the batch finds it; the batch returns
 * the result, and nothing writes it after that.
 */
type Running = Scenario & { -readonly [K in keyof ScenarioResult]: ScenarioResult[K] } & {
  landed: SeenPoint[];
  operations?: string[];
  handle?: WorkflowHandle;
};

/** A run's result as the batch returns it: the plan and what the run did, without the live handle. */
function resultOfRun({ handle, ...ran }: Running): RanScenario {
  void handle; // a live connection's handle ends with its batch
  return Object.freeze(ran);
}

/** How often a batch that waits says what for. */
const WAITING_SAID_EVERY_MS = 15_000;

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
  const { server, suite, timings, temporal } = ctx;
  const batch: Running[] = plans.map((p) => ({ ...p, landed: [], finalPoints: [] }));
  // What a phase's CPU goes to: the clean runs apart, and a park before the first kill (the prefix) apart from a later one.
  const clean = batch.every((s) => s.pass === 'clean');
  const part = (phase: Phase, round = 0): CpuPart =>
    clean ? 'clean' : phase !== 'park' ? phase : round === 0 ? 'prefix' : 'between';
  const serverDies = serverDeathOf(batch[0].row);
  if (batch.some((s) => serverDeathOf(s.row) !== serverDies))
    throw new Error('a batch mixes rows whose Temporal server dies with rows whose server does not');
  if (serverDies && !temporal.restart)
    throw new Error(`rows whose Temporal server dies need a server the sweep may kill, not ${temporal.address}`);
  const runsOf = new Map(batch.map((s) => [s.workflowId, suiteRun(s, ctx.taskQueue, temporal.client)]));
  const plan = suite.batch ? await suite.batch(ctx.lane, [...runsOf.values()]) : {};
  const env = generationEnv(temporal, server.dir, suite, ctx.taskQueue, plan);
  const faults = Object.fromEntries(
    batch.flatMap((s) => {
      const point = s.row.faults?.find((f) => f.inWorker?.throwAt)?.inWorker?.throwAt;
      return point ? [[s.workflowId, { name: point }]] : [];
    }),
  );
  const uncounted = Object.fromEntries(
    batch.flatMap((s) => {
      const setup = ctx.setupPoints?.get(s.row.name);
      const ids = { workflowId: s.workflowId, runId: s.runId, tag: s.tag };
      return setup?.length ? [[s.workflowId, { ids, points: [...setup] }]] : [];
    }),
  );
  const rounds = Math.max(...batch.map((s) => s.kills.length));
  const targetsOf = (round: number) => {
    const targets: Record<string, KillTarget> = {};
    for (const s of batch) if (!s.error && s.kills.length > round) targets[s.workflowId] = s.kills[round];
    return targets;
  };
  // The runs the engine fails for their retry policy, or cancels, at the kill before a round's generation.
  const operatedAt = (round: number) => {
    const operated: NonNullable<CrashPlan['operated']> = {};
    for (const s of batch) {
      const kind = s.row.faults?.find((f) => f.inWorker?.operated)?.inWorker?.operated;
      if (round > 0 && s.kills.length >= round && kind) operated[s.workflowId] = kind;
    }
    return operated;
  };
  // A deploy mid-run (the `new-build` fault): which build each round's worker runs, and how.
  const build = nextBuildOf(batch[0].row);
  if (batch.some((s) => nextBuildOf(s.row) !== build))
    throw new Error('a batch mixes rows of different builds: the engine batches them apart');
  const batchFaults = batchFaultsOf(batch[0].row);
  const atRound = (round: number) => ({ client: temporal.client, taskQueue: ctx.taskQueue, round });
  const envOf = (round: number): GenerationEnv => {
    const extra: Record<string, string> = {};
    for (const f of batchFaults) Object.assign(extra, f.workerEnv?.(atRound(round)));
    return { ...env, worker: { ...env.worker, env: { ...env.worker.env, ...extra } } };
  };
  const generations: Generation[] = [];
  const launch = (round: number) => {
    ctx.counter.generations += 1;
    const gen = new Generation(
      envOf(round),
      { targets: targetsOf(round), faults, uncounted, operated: operatedAt(round) },
      String(ctx.counter.generations),
    );
    gen.onEvent((workflowId, event) => {
      const run = runsOf.get(workflowId);
      if (run && (event.type === 'point' || event.type === 'parked')) suite.onPoint?.(run, event);
    });
    generations.push(gen);
    return gen;
  };
  // The first generation loads while the runs are being started.
  let next = launch(0);
  let runs: RunWatch;
  try {
    for (const f of batchFaults) await f.beforeRuns?.(atRound(0));
    runs = await timings.time('start', () => startRuns(batch, temporal.client, suite, runsOf), part('start'));
    // A batch that waits long says what for, every 15 s: which runs, and the last point each reached.
    const waitWhile = (gen: Generation, pending: () => Running[], ms: number, what: string) =>
      waitForRuns(gen, plan, runs, pending, ms, (waiting, seconds) => {
        const named = waiting.slice(0, 3).map((s) => {
          const last = gen.points.get(s.workflowId)?.at(-1);
          return `${s.id}${last ? ` (last at ${last.name} ${last.detail})` : ' (no point yet)'}`;
        });
        const more = waiting.length > 3 ? `, and ${waiting.length - 3} more` : '';
        ctx.progress?.(
          `lane ${ctx.lane + 1}: waiting ${seconds} s for ${waiting.length} run(s) to ${what}: ${named.join(', ')}${more}`,
        );
      });

    for (let round = 0; round < rounds; round++) {
      const killed = batch.filter((s) => !s.error && s.kills.length > round);
      const gen = next;
      if (!gen.goAt) {
        await timings.time('launch', () => gen.ready, part('launch'));
        gen.go();
      }
      const workerDies = serverDies !== 'worker-survives';
      next = workerDies ? launch(round + 1) : gen;
      const late = await timings.time(
        'park',
        () =>
          waitWhile(
            gen,
            () => killed.filter((s) => !gen.parked.has(s.workflowId) && !runs.ended.has(s.workflowId)),
            120_000,
            `reach kill ${round + 1}`,
          ),
        part('park', round),
      );
      for (const s of late)
        s.error = `kill ${round + 1} never landed: the run did not reach ${JSON.stringify(s.kills[round])} in time`;
      // A busy machine's late kill, when a test asks for one: the parked runs wait in a live worker.
      if (ctx.lateKillMs) await new Promise((resolve) => setTimeout(resolve, ctx.lateKillMs));
      // The generation loaded ahead connects to the server (and checks its namespace) as it starts: a
      // server killed before then would make it exit. Once connected, it reconnects to the restarted one.
      if (serverDies && next !== gen) await timings.time('launch', () => next.ready, part('launch'));
      await timings.time(
        'kill',
        async () => {
          await endRound(gen, serverDies, temporal, timings, () => batch.filter((s) => !runs.ended.has(s.workflowId)));
          // What a fault does to each run that was killed at its point (a reset, a failure for a retry).
          await atKill(
            killed.filter((s) => runFaultOf(s.row) && gen.parked.has(s.workflowId) && !runs.ended.has(s.workflowId)),
            temporal.client,
            round,
          );
          // What a fault does to the batch as a whole, before the next generation polls (a deploy).
          for (const f of batchFaults) await f.afterKill?.(atRound(round));
        },
        part('kill'),
      );
      checkLandings(killed, gen, round);
      if (!workerDies) gen.resume(targetsOf(round + 1));
    }

    const last = next;
    if (!last.goAt) {
      await timings.time('launch', () => last.ready, part('launch'));
      last.go();
    }
    await timings.time(
      'finish',
      async () => {
        // No kill is left to come: a run that keeps failing the same way now never finishes.
        const watch = watchForStuck(batch, runs, temporal.client, suite.waitingRunsStuck ?? false);
        try {
          const unfinished = await waitWhile(
            last,
            () => batch.filter((s) => !runs.ended.has(s.workflowId) && !s.stuck),
            300_000,
            'finish',
          );
          for (const s of unfinished) s.error ??= 'the run did not finish within 5 minutes of its last restart';
        } finally {
          await watch.stop();
        }
        await suite.settle?.();
      },
      part('finish'),
    );
    timings.workerCpu += cpuSeconds(last.pid) ?? 0;
    await last.kill();
  } finally {
    await Promise.all(generations.map((g) => g.kill()));
  }

  for (const gen of generations.slice(1)) {
    for (const s of batch) {
      const first = gen.firstEventAt.get(s.workflowId);
      if (first && gen.goAt) timings.resumed(first - gen.goAt);
    }
  }

  await timings.time(
    'count',
    () => countBatch(batch, temporal.client, suite, runsOf, generations, runs),
    part('count'),
  );
  return batch.map(resultOfRun);
}

/**
 * Ends a round once its runs are parked (or ended). Where only the worker dies: one SIGKILL. Where the
 * server dies (`serverDies`): it is SIGKILLed and started again on its file, with the worker killed
 * while it is down (`worker-dies`: so it never takes a task from the restarted server) or left alive
 * (`worker-survives`: the caller resumes its runs). A dead worker's unfinished runs leave its sticky queue.
 */
async function endRound(
  gen: Generation,
  serverDies: ReturnType<typeof serverDeathOf>,
  temporal: BatchTemporal,
  timings: Timings,
  unfinished: () => Running[],
): Promise<void> {
  const killWorker = async () => {
    timings.workerCpu += cpuSeconds(gen.pid) ?? 0;
    await gen.kill();
  };
  if (!serverDies) await killWorker();
  else await temporal.restart!(serverDies === 'worker-dies' ? killWorker : undefined);
  if (serverDies !== 'worker-survives') await moveOffDeadWorker(temporal.client, unfinished());
}

/**
 * Does each run's row's run fault to it at kill `round`, its worker dead (a reset, a failure for its
 * retry policy, a cancel, a terminate: `Fault.atKill`), and notes what was done in `ScenarioResult.operations`.
 */
async function atKill(runs: Running[], client: Client, round: number): Promise<void> {
  await Promise.all(
    runs.map(async (s) => {
      const line = await runFaultOf(s.row)!.atKill!({
        client,
        workflowId: s.workflowId,
        reason: `crash sweep: ${s.id}, at kill ${round + 1}`,
      });
      (s.operations ??= []).push(line);
    }),
  );
}

/** The end a row's fault gives a run it stopped (`cancelled`, `terminated`), if `error` is that stop; else `null`. */
export function stoppedEnd(row: SuiteRow, error: Error): string | null {
  const stop = row.faults?.find((f) => f.stops?.is(error))?.stops;
  return stop?.end ?? null;
}

/** The end of a run that completed (`ScenarioResult.end`). */
export const COMPLETED = 'completed';

/**
 * What a run's failure says, if its workflow chose it (it threw an `ApplicationFailure`), with its
 * workflow id written `{workflowId}` so that runs compare; `null` for a failure it did not choose.
 */
function chosenFailure(error: Error, workflowId: string): string | null {
  const cause = (error as Error & { cause?: Error }).cause;
  if (!(cause instanceof ApplicationFailure)) return null;
  const text = `${cause.type ? `${cause.type}: ` : ''}${cause.message}`;
  return text.split(workflowId).join('{workflowId}');
}

/** A run's end as its workflow result reports it. */
type RunResult = { ok: true; value: unknown } | { ok: false; error: Error };

/** Which runs of a batch have ended, and how. */
interface RunWatch {
  ended: Set<string>;
  /** Second clean runs waiting for their first to end (`Scenario.after`). */
  notStarted: Set<string>;
  results: Map<string, Promise<RunResult>>;
}

/** Starts every run of a batch on its task queue, and watches each one's end from the start. */
async function startRuns(
  batch: Running[],
  client: Client,
  suite: SweepSuite,
  runsOf: Map<string, SuiteRun>,
): Promise<RunWatch> {
  const watch: RunWatch = { ended: new Set(), notStarted: new Set(), results: new Map() };
  const start = async (s: Running) => {
    const run = runsOf.get(s.workflowId)!;
    s.taskQueue = run.taskQueue;
    s.client = client;
    const marking = s.row.faults?.find((f) => f.startClient);
    s.handle = await suite.start(marking?.startClient ? marking.startClient(client) : client, run);
    if (s.handle.workflowId !== s.workflowId)
      throw new Error(`the suite started ${s.handle.workflowId}, not the run's workflow id ${s.workflowId}`);
    // A run that ends while it should be parked is a kill that did not land: its end is watched from the start.
    const result = resultOf(client, s.handle).finally(() => watch.ended.add(s.workflowId));
    watch.results.set(s.workflowId, result);
    watch.notStarted.delete(s.workflowId);
    return { result };
  };
  // A second clean run starts once its first has ended, in the generation that finishes them both.
  const seconds = batch.filter((s) => s.after);
  for (const s of seconds) watch.notStarted.add(s.workflowId);
  const firsts = new Map<string, Promise<RunResult>>();
  await Promise.all(batch.filter((s) => !s.after).map(async (s) => firsts.set(s.workflowId, (await start(s)).result)));
  for (const s of seconds) {
    const first = s.after && firsts.get(s.after.workflowId);
    if (!first) throw new Error(`${s.id} follows a run that is not in its batch`);
    void first
      .then(() => start(s))
      .catch((err: Error) => {
        s.error ??= `it did not start: ${err.message}`;
        watch.notStarted.delete(s.workflowId);
        watch.ended.add(s.workflowId);
      });
  }
  return watch;
}

/** gRPC status codes of a server that is down or did not answer in time. */
const GRPC_UNAVAILABLE = 14;
const GRPC_DEADLINE_EXCEEDED = 4;

/**
 * A run's result; asked again while its server does not answer (the harness killed it, and it comes
 * back). A run the engine reset ends terminated while a new run of its workflow id goes on: its
 * result is the new run's.
 */
async function resultOf(client: Client, started: WorkflowHandle): Promise<RunResult> {
  let handle = started;
  // The run the handle names: a started handle's first run, or the run it was made for.
  const ids = started as { firstExecutionRunId?: string; runId?: string };
  let runId = ids.firstExecutionRunId ?? ids.runId;
  for (;;) {
    try {
      return { ok: true, value: await handle.result() };
    } catch (err) {
      const code = (err as { code?: number; cause?: { code?: number } }).cause?.code ?? (err as { code?: number }).code;
      if (code === GRPC_UNAVAILABLE || code === GRPC_DEADLINE_EXCEEDED) {
        await sleep(50);
        continue;
      }
      if (err instanceof WorkflowFailedError && err.cause instanceof TerminatedFailure) {
        // A reset terminates the run it came from and starts the new one at once.
        const latest = await client.workflow
          .getHandle(started.workflowId)
          .describe()
          .then((d) => d.runId)
          .catch(() => runId);
        if (latest !== runId) {
          runId = latest;
          handle = client.workflow.getHandle(started.workflowId, latest);
          continue;
        }
      }
      return { ok: false, error: err as Error };
    }
  }
}

/**
 * Waits while `pending` names runs, letting the suite act (`BatchPlan.poll`); returns the runs still
 * pending after `ms`. A generation that dies on its own is an error of the harness, not of a scenario.
 */
async function waitForRuns(
  gen: Generation,
  plan: BatchPlan,
  runs: Pick<RunWatch, 'ended' | 'notStarted'>,
  pending: () => Running[],
  ms: number,
  say?: (waiting: Running[], seconds: number) => void,
): Promise<Running[]> {
  const started = Date.now();
  const deadline = started + ms;
  let saidAt = started;
  const state = {
    isParked: (workflowId: string) => gen.parked.has(workflowId),
    ended: runs.ended,
    notStarted: runs.notStarted,
  };
  for (;;) {
    await plan.poll?.(state);
    const waiting = pending();
    if (waiting.length === 0 || Date.now() > deadline) return waiting;
    if (say && Date.now() - saidAt >= WAITING_SAID_EVERY_MS) {
      saidAt = Date.now();
      say(waiting, Math.round((saidAt - started) / 1000));
    }
    if (!gen.alive) throw new Error(`a sweep worker died on its own:\n${gen.stderrTail()}`);
    await sleep(25);
  }
}

/**
 * Looks for runs of the batch that are stuck (`stuck.ts`) while the last generation finishes them:
 * first after 6 s (a stuck run needs about 7 s for its ten attempts, and most batches have finished by
 * then, so a healthy batch costs the server nothing), then every 2 s. A stuck run is marked and
 * terminated, so nothing waits for it; a clean run that gets stuck is an error (stuck with no kill).
 * Runs that wait with nothing in flight are looked for only where the suite asks (`waiting`).
 */
function watchForStuck(batch: Running[], runs: RunWatch, client: Client, waiting: boolean): { stop(): Promise<void> } {
  let stopped = false;
  const quiet: QuietRuns | null = waiting ? new Map() : null;
  const loop = (async () => {
    for (let round = 0; !stopped; round++) {
      // Slept in short steps, so that a batch that finishes meanwhile is not held up.
      for (let t = 0; t < (round === 0 ? 6_000 : 2_000) && !stopped; t += 100) await sleep(100);
      if (stopped) break;
      const open = batch.filter((s) => !s.error && !s.stuck && !runs.ended.has(s.workflowId));
      await Promise.all(
        open.map(async (s) => {
          const failedTask = s.pass === 'clean' ? await findTaskFailure(client, s.workflowId) : null;
          const stuck = failedTask ?? (await findStuck(client, s.workflowId, quiet, Date.now(), !!nextBuildOf(s.row)));
          if (!stuck || runs.ended.has(s.workflowId)) return;
          if (failedTask) s.taskFailure = describeStuck(failedTask);
          if (s.pass === 'clean') s.error = `got stuck with no kill: ${describeStuck(stuck)}`;
          else s.stuck = stuck;
          await client.workflow
            .getHandle(s.workflowId)
            .terminate(`stuck: ${describeStuck(stuck)}`)
            .catch(() => {}); // it ended meanwhile
        }),
      );
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** Each killed run must have been parked on the point it was meant to die at. */
function checkLandings(killed: Running[], gen: Generation, round: number): void {
  for (const s of killed) {
    const at = gen.parked.get(s.workflowId);
    if (!at) {
      s.error ??= `kill ${round + 1} never landed: the run ended before reaching ${JSON.stringify(s.kills[round])}`;
      continue;
    }
    s.landed.push(at);
    const want = s.expected[round];
    if (want && (want.name !== at.name || want.detail !== at.detail)) {
      s.error = `kill ${round + 1} landed on ${at.name} (${at.detail}), expected ${want.name} (${want.detail})`;
    }
  }
}

/** Counts each finished run's effects through the suite, and checks its history: every timeout in it must be a kill's. */
async function countBatch(
  batch: Running[],
  client: Client,
  suite: SweepSuite,
  runsOf: Map<string, SuiteRun>,
  generations: Generation[],
  runs: RunWatch,
): Promise<void> {
  const last = generations[generations.length - 1];
  const records: GenerationRecord[] = generations.map((g) => ({
    identity: g.identity,
    killedAt: g === last ? 0 : g.killedAt,
    parked: new Map(g.parkedAt),
  }));
  await Promise.all(
    batch.map(async (s) => {
      s.finalPoints = last.points.get(s.workflowId) ?? [];
      const slow = new Set(toleranceOf(s.row).slowActivities);
      for (const g of generations) {
        const late = g.late.get(s.workflowId)?.find((l) => !slow.has(l.activityType));
        if (late)
          s.error ??= `a live activity outlived its timeout (${late.detail}): the machine was too slow for the sweep's timeouts`;
      }
      // Attempts a parked worker took while it waited for the kill: what they changed is judged below.
      const taken = generations.flatMap((g) => g.takenWhileParked.get(s.workflowId) ?? []);
      if (s.stuck) {
        // A run stuck after a parked worker spent its call's attempts is stuck by the sweep's timing.
        if (taken.length > 0)
          s.error ??= `stuck after a parked worker, waiting for its kill, took ${taken.length} attempt(s) of its calls (${taken.map((t) => `${t.activityType} attempt ${t.attempt}`).join(', ')}): the kill came after the call's timeout`;
        // Stuck, and ended by the sweep: what the receivers did is still counted, if the suite can count
        // a run with no result; if not, the stuck column alone says what happened.
        try {
          s.outcome = fillCounts(await suite.check(runsOf.get(s.workflowId)!, undefined));
        } catch {
          s.outcome = fillCounts({ dups: 0, missing: 0 });
        }
        return;
      }
      const ended = runs.ended.has(s.workflowId) && runs.results.get(s.workflowId);
      if (!ended) return; // it did not finish, or never started: its error says so
      const result = await ended;
      // A run that failed as its code says it may (it threw: a saga that compensated, say) ended, and so
      // did a run the row's operation stopped (cancelled, terminated); any other failure (terminated,
      // cancelled, timed out) is not an end a workflow chose.
      const stopped = result.ok ? null : stoppedEnd(s.row, result.error);
      const failure = result.ok ? null : chosenFailure(result.error, s.workflowId);
      const failedHow = () => {
        const e = result.ok ? null : (result.error as Error & { cause?: Error });
        return `the run failed: ${e?.message}${e?.cause ? `: ${e.cause.message}` : ''}`;
      };
      if (!result.ok && failure === null && stopped === null) {
        s.error ??= failedHow();
        return;
      }
      s.end = stopped ?? (failure === null ? COMPLETED : `failed: ${failure}`);
      const history = await client.workflow.getHandle(s.workflowId).fetchHistory();
      const problems = auditHistory(s.workflowId, history.events ?? [], records, slow, taken);
      if (problems.length > 0) s.error ??= `not caused by a kill: ${problems.join('; ')}`;
      try {
        const c = await suite.check(
          runsOf.get(s.workflowId)!,
          result.ok ? result.value : undefined,
          stopped ?? failure ?? undefined,
        );
        s.outcome = fillCounts(c);
      } catch (err) {
        s.error ??=
          failure === null && stopped === null ? `counting its effects failed: ${(err as Error).message}` : failedHow();
      }
    }),
  );
}

/**
 * Takes runs off a dead worker's sticky queue. The server would otherwise keep sending their next
 * workflow task there for up to 10 s after the worker's last poll, each one waiting out a sticky
 * schedule-to-start timeout and adding an event whose presence depends on the clock; after this the
 * next task goes straight to the batch's task queue and the next generation.
 */
async function moveOffDeadWorker(client: Client, runs: Running[]): Promise<void> {
  await Promise.all(
    runs.map(
      (s) =>
        client.workflowService
          .resetStickyTaskQueue({ namespace: client.options.namespace, execution: { workflowId: s.workflowId } })
          .catch(() => {}), // the run ended meanwhile
    ),
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
