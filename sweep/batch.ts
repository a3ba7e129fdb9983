import type { WorkflowStartOptions } from '@temporalio/client';
import { auditHistory, type GenerationRecord } from './audit';
import type { KillTarget } from './crash-control';
import { countEffects, TRIAGE_EFFECTS } from './effects';
import { Generation, type GenerationEnv } from './generation';
import { McpKills } from './mcp-kills';
import type { ScriptedPerson } from './person';
import { EXPECTED, type Scenario } from './scenario';
import { cpuSeconds, type Timings } from './timings';
import { SWEEP_TIMEOUTS, SWEEP_WORKFLOW_TASK_TIMEOUT } from './tuning';
import type { Variant } from './variants';
import type { World } from './world';

const TASK = 'Checkout returns 500 when a coupon is applied';

/** What one batch needs besides its scenarios. */
export interface BatchContext {
  world: World;
  person: ScriptedPerson;
  timings: Timings;
  /** The lane the batch runs in: its MCP servers are that lane's. */
  lane: number;
  /** The batch's own task queue, so that batches in other lanes never take its tasks. */
  taskQueue: string;
  /** Counts generations (for labels), MCP server kills and the writes they cut off. */
  counter: { generations: number; mcpKills: number; mcpWrites: number };
}

/** How the sweep starts a scenario's run: the scripted task, the sweep's short timeouts. */
export function runOptions(s: Scenario, taskQueue: string, trackerUrl: string): WorkflowStartOptions {
  return {
    taskQueue,
    workflowId: s.workflowId,
    workflowTaskTimeout: SWEEP_WORKFLOW_TASK_TIMEOUT,
    args: [s.variant.input({ runId: s.runId, repo: s.repo, task: TASK, trackerUrl, timeouts: SWEEP_TIMEOUTS })],
  };
}

/** Where the generations of a task queue find the world. */
export function generationEnv(world: World, taskQueue: string, mcpConfig?: string): GenerationEnv {
  return {
    temporalAddress: world.temporal.address,
    namespace: world.env.client.options.namespace,
    taskQueue,
    trackerUrl: world.trackers.keyed.url,
    openaiBaseUrl: `${world.modelUrl}/v1`,
    workflowBundle: world.workflowBundle,
    mcpConfig: mcpConfig ?? world.noMcpConfig,
    dir: world.dir,
    workerScript: world.workerScript,
  };
}

function trackerOf(world: World, variant: Variant) {
  return world.trackers[variant.tracker];
}

/**
 * Runs one batch: every run is started; each killed generation parks every run at its own point and
 * dies by one SIGKILL; a last generation runs them all to the end. Each generation is launched while
 * the one before it still works, so a kill is followed at once by a worker that is already loaded.
 * A kill that did not land on its expected point marks the scenario as an error, never a pass.
 */
export async function runBatch(batch: Scenario[], ctx: BatchContext): Promise<void> {
  const { world, person, timings } = ctx;
  const byWorkflow = new Map(batch.map((s) => [s.workflowId, s]));
  const mcpLane = batch.some((s) => s.variant.mcp) ? await world.mcpLane(ctx.lane) : null;
  const env = generationEnv(world, ctx.taskQueue, mcpLane?.config);
  const faults = Object.fromEntries(batch.filter((s) => s.variant.fault).map((s) => [s.workflowId, { name: s.variant.fault! }]));
  const rounds = Math.max(...batch.map((s) => s.kills.length));
  const generations: Generation[] = [];
  const launch = (round: number) => {
    const targets: Record<string, KillTarget> = {};
    for (const s of batch) if (!s.error && s.kills.length > round) targets[s.workflowId] = s.kills[round];
    ctx.counter.generations += 1;
    const gen = new Generation(env, { targets, faults }, String(ctx.counter.generations));
    gen.onEvent((workflowId, event) => {
      const s = byWorkflow.get(workflowId);
      if (s) person.notice({ workflowId, runId: s.runId, repo: s.repo, store: trackerOf(world, s.variant).store }, event);
    });
    generations.push(gen);
    return gen;
  };
  // The first generation loads while the runs are being started.
  let next = launch(0);
  let runs: RunWatch;
  try {
    runs = await timings.time('start', () => startRuns(batch, ctx));
    const mcpKills = new McpKills(mcpLane, batch, runs.ended, ctx.counter);
    const waitWhile = (gen: Generation, pending: () => Scenario[], ms: number) => waitForRuns(gen, mcpKills, pending, ms);

    for (let round = 0; round < rounds; round++) {
      const killed = batch.filter((s) => !s.error && s.kills.length > round);
      const gen = next;
      await timings.time('launch', () => gen.ready);
      gen.go();
      next = launch(round + 1);
      const late = await timings.time('park', () =>
        waitWhile(gen, () => killed.filter((s) => !gen.parked.has(s.workflowId) && !runs.ended.has(s.workflowId)), 120_000),
      );
      for (const s of late) s.error = `kill ${round + 1} never landed: the run did not reach ${JSON.stringify(s.kills[round])} in time`;
      await timings.time('kill', async () => {
        timings.workerCpu += cpuSeconds(gen.pid) ?? 0;
        await gen.kill();
        await moveOffDeadWorker(world, batch.filter((s) => !runs.ended.has(s.workflowId)));
      });
      checkLandings(killed, gen, round);
    }

    const last = next;
    await timings.time('launch', () => last.ready);
    last.go();
    await timings.time('finish', async () => {
      const unfinished = await waitWhile(last, () => batch.filter((s) => !runs.ended.has(s.workflowId)), 300_000);
      for (const s of unfinished) s.error ??= 'the run did not finish within 5 minutes of its last restart';
      await person.settle();
    });
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

  await timings.time('count', () => countBatch(batch, ctx, generations, runs));
}

/** A run's end as its workflow result reports it. */
type RunResult = { ok: true; value: { questionsAsked?: number; approvalsRequested?: number } } | { ok: false; error: Error };

/** Which runs of a batch have ended, and how. */
interface RunWatch {
  ended: Set<string>;
  results: Map<string, Promise<RunResult>>;
}

/** Starts every run of a batch on its task queue, and watches each one's end from the start. */
async function startRuns(batch: Scenario[], ctx: BatchContext): Promise<RunWatch> {
  const { client } = ctx.world.env;
  const watch: RunWatch = { ended: new Set(), results: new Map() };
  await Promise.all(
    batch.map(async (s) => {
      const tracker = trackerOf(ctx.world, s.variant);
      s.taskQueue = ctx.taskQueue;
      s.handle = await client.workflow.start(s.variant.workflowType, runOptions(s, ctx.taskQueue, tracker.url));
      // A run that ends while it should be parked is a kill that did not land: its end is watched from the start.
      const result = s.handle.result().then(
        (value): RunResult => ({ ok: true, value: value as { questionsAsked?: number; approvalsRequested?: number } }),
        (error: Error): RunResult => ({ ok: false, error }),
      );
      watch.results.set(s.workflowId, result.finally(() => watch.ended.add(s.workflowId)));
    }),
  );
  return watch;
}

/**
 * Waits while `pending` names runs, letting the MCP kills act; returns the runs still pending after
 * `ms`. A generation that dies on its own is an error of the harness, not of a scenario.
 */
async function waitForRuns(gen: Generation, mcpKills: McpKills, pending: () => Scenario[], ms: number): Promise<Scenario[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    await mcpKills.poll(gen);
    const waiting = pending();
    if (waiting.length === 0 || Date.now() > deadline) return waiting;
    if (!gen.alive) throw new Error(`a sweep worker died on its own:\n${gen.stderrTail()}`);
    await sleep(25);
  }
}

/** Each killed run must have been parked on the point it was meant to die at. */
function checkLandings(killed: Scenario[], gen: Generation, round: number): void {
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

/** Counts each finished run's effects and checks its history: every timeout in it must be a kill's. */
async function countBatch(
  batch: Scenario[],
  ctx: BatchContext,
  generations: Generation[],
  runs: RunWatch,
): Promise<void> {
  const { world, person } = ctx;
  const last = generations[generations.length - 1];
  const records: GenerationRecord[] = generations.map((g) => ({ identity: g.identity, killedAt: g === last ? 0 : g.killedAt, parked: new Set(g.parked.keys()) }));
  await Promise.all(
    batch.map(async (s) => {
      s.finalPoints = last.points.get(s.workflowId) ?? [];
      for (const g of generations) {
        const late = g.late.get(s.workflowId);
        if (late) s.error ??= `a live activity outlived its timeout (${late}): the machine was too slow for the sweep's timeouts`;
      }
      delete s.handle;
      if (!runs.ended.has(s.workflowId)) return;
      const result = await runs.results.get(s.workflowId)!;
      if (!result.ok) {
        const cause = (result.error as Error & { cause?: Error }).cause;
        s.error ??= `the run failed: ${result.error.message}${cause ? `: ${cause.message}` : ''}`;
        return;
      }
      const history = await world.env.client.workflow.getHandle(s.workflowId).fetchHistory();
      const problems = auditHistory(s.workflowId, history.events ?? [], records);
      if (problems.length > 0) s.error ??= `not caused by a kill: ${problems.join('; ')}`;
      const effects = countEffects(trackerOf(world, s.variant).store, s.repo, s.runId, TRIAGE_EFFECTS);
      const modelCalls = await world.modelCalls(s.runId);
      const asks = person.asksFor(s.workflowId);
      s.outcome = {
        ...effects,
        asks,
        modelCalls,
        callsExtra: Math.max(0, modelCalls - EXPECTED.modelCalls),
        approvals: result.value.approvalsRequested ?? 0,
      };
      if ((result.value.questionsAsked ?? 0) !== asks) {
        s.error ??= `the run counted ${result.value.questionsAsked} questions, the person was asked ${asks}`;
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
async function moveOffDeadWorker(world: World, runs: Scenario[]): Promise<void> {
  const { client } = world.env;
  await Promise.all(
    runs.map((s) =>
      client.workflowService
        .resetStickyTaskQueue({ namespace: client.options.namespace, execution: { workflowId: s.workflowId } })
        .catch(() => {}), // the run ended meanwhile
    ),
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
