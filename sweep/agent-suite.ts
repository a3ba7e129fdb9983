import type { WorkflowStartOptions } from '@temporalio/client';
import { countEffects, TRIAGE_EFFECTS } from './effects';
import { effectsInHistory } from './history-effects';
import type { GenerationEnv } from './generation';
import { McpKills } from './mcp-kills';
import { ScriptedPerson } from './person';
import type { SuiteFactory } from './run-sweep';
import type { SweepServer } from './server';
import type { Counts, SuiteRun, SweepSuite } from './suite';
import { SWEEP_TIMEOUTS, SWEEP_WORKFLOW_TASK_TIMEOUT } from './tuning';
import type { Variant } from './variants';
import { startWorld, type World } from './world';

const TASK = 'Checkout returns 500 when a coupon is applied';

/** How the sweep starts an agent run: the scripted task, the sweep's short timeouts. */
export function runOptions(run: SuiteRun<Variant>, trackerUrl: string): WorkflowStartOptions {
  return {
    taskQueue: run.taskQueue,
    workflowId: run.workflowId,
    workflowTaskTimeout: SWEEP_WORKFLOW_TASK_TIMEOUT,
    args: [run.row.input({ runId: run.runId, repo: run.tag, task: TASK, trackerUrl, timeouts: SWEEP_TIMEOUTS })],
  };
}

/** How the agent's worker processes start: the crash worker compiled to one file, pointed at the world. */
export function agentWorker(world: World, mcpConfig?: string): SweepSuite['worker'] {
  return {
    script: world.workerScript,
    env: {
      TRACKER_URL: world.trackers.keyed.url,
      OPENAI_BASE_URL: `${world.modelUrl}/v1`,
      WORKFLOW_BUNDLE: world.workflowBundle,
      MCP_CONFIG: mcpConfig ?? world.noMcpConfig,
    },
  };
}

/** Where an agent generation of a task queue finds the world (for tests that drive a generation by hand). */
export function agentGenerationEnv(world: World, taskQueue: string): GenerationEnv {
  return { temporalAddress: world.temporal.address, namespace: world.env.client.options.namespace, taskQueue, dir: world.dir, worker: agentWorker(world) };
}

/** The agent's end as its workflow result reports it (the designs report neither). */
interface AgentResult {
  questionsAsked?: number;
  approvalsRequested?: number;
}

/**
 * The agent loop and the five designs as a suite of the sweep engine: its world (trackers on SQLite,
 * the scripted model, MCP servers per lane), its scripted person, and its counts from the trackers'
 * rows, the model server's counter and the person's tally.
 */
export function agentSuiteOn(world: World, variants: readonly Variant[], ownsWorld: boolean): SweepSuite<Variant> {
  const person = new ScriptedPerson(world.env.client);
  const counter = { mcpKills: 0, mcpWrites: 0 };
  const trackerOf = (v: Variant) => world.trackers[v.tracker];
  return {
    rows: variants,
    worker: agentWorker(world),
    async batch(lane, runs) {
      if (!runs.some((r) => r.row.mcp)) return {};
      const mcpLane = await world.mcpLane(lane);
      const kills = new McpKills(mcpLane, runs, counter);
      return { env: { MCP_CONFIG: mcpLane.config }, poll: (state) => kills.poll(state) };
    },
    start: (client, run) => {
      if (run.row.model === 'fickle') world.fickleRuns.add(run.runId);
      return client.workflow.start(run.row.workflowType, runOptions(run, trackerOf(run.row).url));
    },
    onPoint(run, event) {
      person.notice({ workflowId: run.workflowId, runId: run.runId, repo: run.tag, store: trackerOf(run.row).store, mode: run.row.person }, event);
    },
    settle: () => person.settle(),
    async check(run, result): Promise<Counts> {
      const expected = run.row.expects === 'history' ? await effectsInHistory(world.env.client, run.workflowId) : (run.row.expects ?? TRIAGE_EFFECTS);
      const { issues, comments, dups, orphans, missing } = countEffects(trackerOf(run.row).store, run.tag, run.runId, expected);
      const asks = person.asksFor(run.workflowId);
      const { questionsAsked = 0, approvalsRequested = 0 } = (result ?? {}) as AgentResult;
      if (questionsAsked !== asks) throw new Error(`the run counted ${questionsAsked} questions, the person was asked ${asks}`);
      return { dups, missing, orphans, asks, calls: await world.modelCalls(run.runId), approvals: approvalsRequested, details: { issues, comments } };
    },
    stats: () => ({ ...counter }),
    close: async () => {
      if (ownsWorld) await world.close();
    },
  };
}

/** The agent suite for `runSweep`: its world is built on the sweep's server. */
export function agentSuite(variants: readonly Variant[]): SuiteFactory {
  return async (server: SweepServer) => agentSuiteOn(await startWorld({ server }), variants, true);
}
