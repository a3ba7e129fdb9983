import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { key } from '../common/key';
import { WRITE_CALL_IDS } from '../model/script';
import type { KillTarget } from './crash-control';
import { Generation, type GenerationEnv, type SeenPoint } from './generation';
import { ScriptedPerson } from './person';
import { SWEEP_TIMEOUTS, SWEEP_WORKFLOW_TASK_TIMEOUT } from './tuning';
import type { Variant } from './variants';
import type { World } from './world';

/** What the scripted triage job does to the tracker in a clean run, and what it costs. */
export const EXPECTED = { issues: 2, comments: 1, modelCalls: 3 } as const;

const TASK = 'Checkout returns 500 when a coupon is applied';
const TASK_QUEUE = 'crash-sweep';

/** Which pass a scenario belongs to: the clean run that records the points, or a run killed once or twice. */
export type Pass = 'clean' | 'once' | 'twice';

/** What the world looked like after a scenario, counted from the tracker, the model server and the person. */
export interface Outcome {
  issues: number;
  comments: number;
  dups: number;
  missing: number;
  asks: number;
  modelCalls: number;
  callsExtra: number;
  approvals: number;
}

/** One run of a variant, killed at zero, one or two points. */
export interface Scenario {
  id: string;
  variant: Variant;
  pass: Pass;
  /** Where each killed generation parks the run, in order. */
  kills: KillTarget[];
  /** The point each kill must land on (from the clean run, then from the first restart). */
  expected: SeenPoint[];
  /** Where each kill did land. */
  landed: SeenPoint[];
  runId: string;
  workflowId: string;
  repo: string;
  /** Points the last generation (the one that finished the run) reached, in order. */
  finalPoints: SeenPoint[];
  outcome?: Outcome;
  error?: string;
  handle?: WorkflowHandle;
}

/** Options of {@link runScenarios}. */
export interface RunOptions {
  world: World;
  person: ScriptedPerson;
  /** How many scenarios share one worker generation. */
  batchSize: number;
  /** Called with a line of progress now and then. */
  progress: (line: string) => void;
  /** Counts generations (for the label of plan files), MCP server kills and the writes they cut off. */
  counter: { generations: number; mcpKills: number; mcpWrites: number };
}

let scenarioCounter = 0;

/** A new scenario of a variant with a fresh run id. */
export function newScenario(variant: Variant, pass: Pass, label: string, kills: KillTarget[], expected: SeenPoint[]): Scenario {
  const runId = randomUUID();
  scenarioCounter += 1;
  const repo = `${variant.name}-${pass}-${scenarioCounter}`;
  return {
    id: `${variant.name} ${pass} ${label}`,
    variant,
    pass,
    kills,
    expected,
    landed: [],
    runId,
    workflowId: `sweep-${repo}-${runId.slice(0, 8)}`,
    repo,
    finalPoints: [],
  };
}

function trackerOf(world: World, variant: Variant) {
  return world.trackers[variant.tracker];
}

/**
 * Runs scenarios in batches. In each batch every run is started, then each killed generation parks
 * every run at its own point and dies by one SIGKILL, and a last generation runs them all to the end.
 * A kill that did not land on its expected point marks the scenario as an error, never a pass.
 */
export async function runScenarios(scenarios: Scenario[], options: RunOptions, phase: string): Promise<void> {
  for (let start = 0; start < scenarios.length; start += options.batchSize) {
    const batch = scenarios.slice(start, start + options.batchSize);
    await runBatch(batch, options);
    options.progress(`${phase}: ${Math.min(start + batch.length, scenarios.length)}/${scenarios.length} scenarios`);
  }
}

async function runBatch(batch: Scenario[], options: RunOptions): Promise<void> {
  const { world, person } = options;
  const client = world.env.client;
  const byWorkflow = new Map(batch.map((s) => [s.workflowId, s]));
  if (batch.some((s) => s.variant.mcp)) await world.startMcp();

  await Promise.all(
    batch.map(async (s) => {
      const tracker = trackerOf(world, s.variant);
      s.handle = await client.workflow.start(s.variant.workflowType, {
        taskQueue: TASK_QUEUE,
        workflowId: s.workflowId,
        workflowTaskTimeout: SWEEP_WORKFLOW_TASK_TIMEOUT,
        args: [s.variant.input({ runId: s.runId, repo: s.repo, task: TASK, trackerUrl: tracker.url, timeouts: SWEEP_TIMEOUTS })],
      });
    }),
  );
  // Each run's end, watched from the start: a run that ends while it should be parked is a kill that did not land.
  const ended = new Map<string, boolean>();
  const results = new Map(
    batch.map((s) => [
      s.workflowId,
      s.handle!.result().then(
        (r) => {
          ended.set(s.workflowId, true);
          return { ok: true as const, value: r as { questionsAsked?: number; approvalsRequested?: number } };
        },
        (err: Error) => {
          ended.set(s.workflowId, true);
          return { ok: false as const, error: err };
        },
      ),
    ]),
  );

  const env: GenerationEnv = {
    temporalAddress: world.env.address,
    taskQueue: TASK_QUEUE,
    trackerUrl: world.trackers.keyed.url,
    openaiBaseUrl: `${world.modelUrl}/v1`,
    workflowBundle: world.workflowBundle,
    mcpConfig: world.mcpConfig,
    dir: world.dir,
  };
  const faults = Object.fromEntries(batch.filter((s) => s.variant.fault).map((s) => [s.workflowId, { name: s.variant.fault! }]));
  const mcpKills = new McpKills(world, batch, ended, options.counter);
  const rounds = Math.max(...batch.map((s) => s.kills.length));

  const spawn = (targets: Record<string, KillTarget>) => {
    options.counter.generations += 1;
    const gen = new Generation(env, { targets, faults }, String(options.counter.generations));
    gen.onEvent((workflowId, event) => {
      const s = byWorkflow.get(workflowId);
      if (s) person.notice({ workflowId, runId: s.runId, repo: s.repo, store: trackerOf(world, s.variant).store }, event);
    });
    return gen;
  };

  for (let round = 0; round < rounds; round++) {
    const killed = batch.filter((s) => !s.error && s.kills.length > round);
    const gen = spawn(Object.fromEntries(killed.map((s) => [s.workflowId, s.kills[round]])));
    await gen.ready;
    const deadline = Date.now() + 120_000;
    for (;;) {
      await mcpKills.poll(gen);
      const waiting = killed.filter((s) => !gen.parked.has(s.workflowId) && !ended.get(s.workflowId));
      if (waiting.length === 0) break;
      if (!gen.alive) throw new Error(`a sweep worker died on its own:\n${gen.stderrTail()}`);
      if (Date.now() > deadline) {
        for (const s of waiting) s.error = `kill ${round + 1} never landed: the run did not reach ${JSON.stringify(s.kills[round])} in time`;
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    await gen.kill();
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

  const last = spawn({});
  await last.ready;
  const deadline = Date.now() + 300_000;
  while (batch.some((s) => !ended.get(s.workflowId))) {
    if (Date.now() > deadline) {
      for (const s of batch) if (!ended.get(s.workflowId)) s.error ??= 'the run did not finish within 5 minutes of its last restart';
      break;
    }
    if (!last.alive) throw new Error(`a sweep worker died on its own:\n${last.stderrTail()}`);
    await mcpKills.poll(last);
    await new Promise((r) => setTimeout(r, 25));
  }
  await person.settle();
  await last.kill();

  for (const s of batch) {
    s.finalPoints = last.points.get(s.workflowId) ?? [];
    if (!ended.get(s.workflowId)) continue;
    const result = await results.get(s.workflowId)!;
    if (!result.ok) {
      const cause = (result.error as Error & { cause?: Error }).cause;
      s.error ??= `the run failed: ${result.error.message}${cause ? `: ${cause.message}` : ''}`;
      continue;
    }
    const { issues, comments } = trackerOf(world, s.variant).store.counts(s.repo);
    const modelCalls = await world.modelCalls(s.runId);
    const asks = person.asksFor(s.workflowId);
    s.outcome = {
      issues,
      comments,
      dups: Math.max(0, issues - EXPECTED.issues) + Math.max(0, comments - EXPECTED.comments),
      missing: Math.max(0, EXPECTED.issues - issues) + Math.max(0, EXPECTED.comments - comments),
      asks,
      modelCalls,
      callsExtra: Math.max(0, modelCalls - EXPECTED.modelCalls),
      approvals: result.value.approvalsRequested ?? 0,
    };
    if ((result.value.questionsAsked ?? 0) !== asks) {
      s.error ??= `the run counted ${result.value.questionsAsked} questions, the person was asked ${asks}`;
    }
  }
  for (const s of batch) delete s.handle;
}

/**
 * Kills the world's MCP servers for the runs of a batch whose tools are over MCP. Each server parks
 * a write the first time the tracker accepts it; once every run that uses the server is parked (there
 * or at its worker kill) or has ended, no other request can be in flight to it, so a SIGKILL fails
 * exactly the parked calls, whatever the timing. Then the server starts again on its port.
 */
class McpKills {
  /** Which run a parked request belongs to, by the call's key. */
  private readonly owners = new Map<string, string>();
  private readonly runs: Scenario[];

  constructor(
    private readonly world: World,
    batch: Scenario[],
    private readonly ended: Map<string, boolean>,
    private readonly counter: { mcpKills: number; mcpWrites: number },
  ) {
    this.runs = batch.filter((s) => s.variant.mcp);
    for (const s of this.runs) for (const id of WRITE_CALL_IDS) this.owners.set(key(s.runId, id), s.workflowId);
  }

  async poll(gen: Generation): Promise<void> {
    for (const tracker of ['keyed', 'keyless'] as const) {
      const host = this.world.mcp[tracker];
      if (host.parked.size === 0) continue;
      const atMcp = new Set<string>();
      for (const [k, detail] of host.parked) {
        const owner = this.owners.get(k);
        if (!owner) throw new Error(`MCP server ${host.name} parked a call of no run in this batch: ${detail}`);
        atMcp.add(owner);
      }
      const moving = this.runs.some(
        (s) =>
          s.variant.tracker === tracker && !s.error && !this.ended.get(s.workflowId) && !gen.parked.has(s.workflowId) && !atMcp.has(s.workflowId),
      );
      if (moving) continue;
      this.counter.mcpWrites += host.parked.size;
      await host.restart();
      this.counter.mcpKills += 1;
    }
  }
}
