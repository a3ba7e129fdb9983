// The agent loop and the five designs as a suite of the sweep engine: how runs start, how they are counted.
import path from 'node:path';
import type { WorkflowStartOptions } from '@temporalio/client';
import type { RetryPolicy } from '@temporalio/common';
import { countEffects, TRIAGE_EFFECTS } from './effects';
import { storeOrphans } from './store-orphans';
import { LocalStorageDriver } from '../store/local-driver';
import { effectsInHistory } from './history-effects';
import { approvalBreaches, approvedCallsInHistory } from './approvals-in-history';
import type { GenerationEnv } from '../sweep/engine/generation';
import { retry } from '../sweep/faults';
import { AgentReceivers } from './agent-receivers';
import { ScriptedPerson } from './person';
import { AGENT_SEARCH_ATTRIBUTES } from '../common/search-attributes';
import type { SuiteFactory } from '../sweep/engine/passes';
import type { SweepServer } from '../sweep/hosts/sweep-server';
import type { Counts } from '../sweep/judge/counts';
import type { SuiteRun, SweepSuite } from '../sweep/engine/suite';
import { SWEEP_WORKFLOW_TASK_TIMEOUT } from '../sweep/engine/timeouts';
import { SWEEP_TIMEOUTS } from './timeouts';
import type { AgentRow } from './rows';
import { startWorld, type World, type WorldTracker } from './world';
import type { AgentResult } from '../workflows/types';
import { TRIAGE_INSTRUCTIONS } from '../examples/triage/tools';

const TASK = 'Checkout returns 500 when a coupon is applied';

/**
 * The retry policy of a run in a row whose run fails at each kill (`RETRY_GROUP`): started over soon,
 * and more times than any scenario kills it.
 */
const RUN_RETRY: RetryPolicy = { initialInterval: '100ms', maximumAttempts: 10 };

/** How the sweep starts an agent run: the scripted task, the sweep's short timeouts. */
export function runOptions(run: SuiteRun<AgentRow>, trackerUrl: string): WorkflowStartOptions {
  return {
    taskQueue: run.taskQueue,
    workflowId: run.workflowId,
    workflowTaskTimeout: run.row.workflowTaskTimeout ?? SWEEP_WORKFLOW_TASK_TIMEOUT,
    // An agent run has no retry policy of its own: a row whose run fails to be retried gives it one.
    ...(run.row.faults?.includes(retry) ? { retry: RUN_RETRY } : {}),
    args: [
      run.row.input({
        runId: run.runId,
        repo: run.tag,
        task: TASK,
        instructions: TRIAGE_INSTRUCTIONS,
        trackerUrl,
        timeouts: SWEEP_TIMEOUTS,
      }),
    ],
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
      // The payload store every generation shares, as the workers of one task queue must.
      AGENT_PAYLOAD_DIR: path.join(world.dir, 'payloads'),
    },
  };
}

/** Where an agent generation of a task queue finds the world (for tests that drive a generation by hand). */
export function agentGenerationEnv(world: World, taskQueue: string): GenerationEnv {
  return {
    temporalAddress: world.temporal.address,
    namespace: world.env.client.options.namespace,
    taskQueue,
    dir: world.dir,
    worker: agentWorker(world),
  };
}

/**
 * The agent loop and the five designs as a suite of the sweep engine: its world (trackers on SQLite,
 * the scripted model, MCP servers and tracker processes per lane, which it kills mid-request), its
 * receivers under their rows' faults (`agent-receivers.ts`), its scripted person, and its counts from
 * the trackers' rows, the model server's counter and the person's tally.
 */
export function agentSuiteOn(world: World, variants: readonly AgentRow[], ownsWorld: boolean): SweepSuite<AgentRow> {
  const person = new ScriptedPerson();
  const receivers = new AgentReceivers(world);
  // The payload store the workers share (AGENT_PAYLOAD_DIR of `agentWorker`), and what it holds that no history names.
  const store = { driver: new LocalStorageDriver({ dir: path.join(world.dir, 'payloads') }), runs: 0, orphans: 0 };
  return {
    rows: variants,
    worker: agentWorker(world),
    batch: (lane, runs) => receivers.planFor(lane, runs),
    start: (client, run) => {
      if (run.row.fickle) world.fickleRuns.set(run.runId, run.row.fickle);
      return client.workflow.start(run.row.workflowType, runOptions(run, receivers.trackerOf(run).url));
    },
    onPoint(run, event) {
      const { client, workflowId, runId, tag: repo } = run;
      person.notice(
        { client, workflowId, runId, repo, store: receivers.trackerOf(run).store, mode: run.row.person },
        event,
      );
    },
    settle: () => person.settle(),
    async check(run, result, failure): Promise<Counts> {
      const failed = person.failureOf(run.workflowId);
      if (failed) throw new Error(failed);
      await receivers.checkRun(run);
      return countRun(run, result, failure, { world, person, tracker: receivers.trackerOf(run), store });
    },
    stats: () => ({
      mcpKills: receivers.mcpKills.kills,
      mcpWrites: receivers.mcpKills.requests,
      trackerKills: receivers.trackerKills.kills,
      trackerWrites: receivers.trackerKills.requests,
      storedRuns: store.runs,
      storeOrphans: store.orphans,
    }),
    close: async () => {
      if (ownsWorld) await world.close();
    },
  };
}

/** What counting a run reads: the world, the person, the run's tracker, and the payload store with its tally. */
interface CountSources {
  world: World;
  person: ScriptedPerson;
  tracker: WorldTracker;
  store: { driver: LocalStorageDriver; runs: number; orphans: number };
}

/**
 * An ended run's counts, from the tracker's rows, the model server's counter and the person's tally;
 * throws if the run is not countable (its questions or approvals do not match what the person saw).
 */
async function countRun(
  run: SuiteRun<AgentRow>,
  result: unknown,
  failure: string | undefined,
  { world, person, tracker, store }: CountSources,
): Promise<Counts> {
  // A run a person stopped is held to the replies its history holds: a write of theirs it never made
  // is what the stop left half done, not a loss.
  const stopped = failure !== undefined && !!run.row.faults?.some((f) => f.stops?.end === failure);
  const expected =
    run.row.expects === 'history' || stopped
      ? await effectsInHistory(run.client, run.workflowId)
      : (run.row.expects ?? TRIAGE_EFFECTS);
  const counted = countEffects(tracker.store, run.tag, run.runId, expected);
  const { dups, diverged, orphans, details } = counted;
  const [missing, halfDone] = stopped ? [0, counted.missing] : [counted.missing, 0];
  const asks = person.asksFor(run.workflowId);
  if ((await store.driver.objectsOf(run.workflowId)).length > 0) {
    store.runs += 1;
    store.orphans += await storeOrphans(run.client, run.workflowId, store.driver);
  }
  // The designs' results report neither count.
  const { questionsAsked = 0, approvalsRequested = 0 } = (result ?? {}) as Partial<AgentResult>;
  if (questionsAsked !== asks)
    throw new Error(`the run counted ${questionsAsked} questions, the person was asked ${asks}`);
  // No call may run under an approval of other arguments than the person was shown (a reset
  // reapplies the run's old approvals to whatever the new execution asks): a broken gate, not damage.
  if (approvalsRequested > 0) {
    const breaches = approvalBreaches(
      await approvedCallsInHistory(run.client, run.workflowId),
      person.approvedFor(run.workflowId),
    );
    if (breaches.length > 0) throw new Error(breaches[0]);
  }
  const calls = await world.modelCalls(run.runId);
  return { dups, diverged, missing, orphans, halfDone, asks, calls, approvals: approvalsRequested, details };
}

/** The agent suite for `runSweep`: its world is built on the sweep's server. */
export function agentSuite(variants: readonly AgentRow[]): SuiteFactory {
  const factory = async (server: SweepServer) => agentSuiteOn(await startWorld({ server }), variants, true);
  return Object.assign(factory, { searchAttributes: AGENT_SEARCH_ATTRIBUTES });
}
