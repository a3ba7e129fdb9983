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
import { key } from '../common/key';
import { activityOperationOf, operateOnStuckCall, partitionOf, receiverDeathOf, retry } from '../sweep/faults';
import { WRITE_CALL_IDS } from '../model/script';
import { ReceiverKills, type ReceiverKill } from '../sweep/hosts/receiver-host';
import { ScriptedPerson } from './person';
import { AGENT_SEARCH_ATTRIBUTES } from '../common/search-attributes';
import type { SuiteFactory } from '../sweep/engine/passes';
import type { SweepServer } from '../sweep/hosts/sweep-server';
import type { Counts } from '../sweep/judge/counts';
import type { BatchPlan, SuiteRun, SweepSuite } from '../sweep/engine/suite';
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
 * the scripted model, MCP servers and tracker processes per lane, which it kills mid-request), its scripted person, and its counts from the trackers'
 * rows, the model server's counter and the person's tally.
 */
export function agentSuiteOn(world: World, variants: readonly AgentRow[], ownsWorld: boolean): SweepSuite<AgentRow> {
  const person = new ScriptedPerson();
  const mcp = { kills: 0, requests: 0 };
  // The payload store the workers share (AGENT_PAYLOAD_DIR of `agentWorker`), and what it holds that no history names.
  const payloads = new LocalStorageDriver({ dir: path.join(world.dir, 'payloads') });
  const stored = { runs: 0, orphans: 0 };
  const trackerKills = { kills: 0, requests: 0 };
  // The tracker of each run whose row kills its tracker (a process, chosen by the run's lane) or
  // partitions it (a proxy in front of the world's tracker).
  const ownTracker = new Map<string, WorldTracker>();
  // What the operator did to each call that got stuck (or why it could not), for the run's check.
  const operations = new Map<string, Promise<string>>();
  /** The operator: a write of a run whose row names an activity operation is stuck behind the partition, so it acts on its activity. */
  const operator = (run: SuiteRun<AgentRow>) => {
    const operation = activityOperationOf(run.row);
    if (!operation || operations.has(run.workflowId)) return;
    const done = operateOnStuckCall(run.client, run.workflowId, operation, 'runTool');
    done.catch(() => undefined); // read by the run's check
    operations.set(run.workflowId, done);
  };
  const trackerOf = (run: SuiteRun<AgentRow>) => ownTracker.get(run.runId) ?? world.trackers[run.row.tracker];
  /** MCP servers that die: each holds a write by its call's key. */
  const mcpTargets = async (
    lane: number,
    viaMcp: SuiteRun<AgentRow>[],
  ): Promise<{ targets: ReceiverKill[]; config: string }> => {
    const mcpLane = await world.mcpLane(lane);
    const owners = new Map(
      viaMcp.flatMap((r) => WRITE_CALL_IDS.map((id) => [key(r.runId, id), r.workflowId] as const)),
    );
    const targets = (['keyed', 'keyless'] as const).map((kind) => ({
      host: mcpLane.hosts[kind],
      runs: viaMcp.filter((r) => r.row.tracker === kind),
      ownerOf: (k: string) => owners.get(k),
    }));
    return { targets, config: mcpLane.config };
  };
  /** Tracker processes that die: one per kind and point the runs need; each holds a write by the run's repo. */
  const trackerTargets = async (lane: number, dying: SuiteRun<AgentRow>[]): Promise<ReceiverKill[]> => {
    const targets: ReceiverKill[] = [];
    for (const kind of ['keyed', 'keyless'] as const) {
      for (const point of ['received', 'committed'] as const) {
        const using = dying.filter((r) => {
          const death = receiverDeathOf(r.row);
          return r.row.tracker === kind && death?.receiver === 'tracker' && death.at === point;
        });
        if (using.length === 0) continue;
        const proc = await world.trackerProcess(lane, kind, point);
        for (const r of using) ownTracker.set(r.runId, proc);
        const owners = new Map(using.map((r) => [r.tag, r.workflowId]));
        targets.push({ host: proc.host, runs: using, ownerOf: (repo) => owners.get(repo) });
      }
    }
    return targets;
  };
  return {
    rows: variants,
    worker: agentWorker(world),
    async batch(lane, runs) {
      const plan: BatchPlan = {};
      const kills: ReceiverKills[] = [];
      const viaMcp = runs.filter((r) => receiverDeathOf(r.row)?.receiver === 'mcp');
      if (viaMcp.length > 0) {
        const { targets, config } = await mcpTargets(lane, viaMcp);
        kills.push(new ReceiverKills(targets, mcp));
        plan.env = { MCP_CONFIG: config };
      }
      const dying = runs.filter((r) => receiverDeathOf(r.row)?.receiver === 'tracker');
      if (dying.length > 0) kills.push(new ReceiverKills(await trackerTargets(lane, dying), trackerKills));
      for (const r of runs) {
        const lost = partitionOf(r.row);
        if (!lost) continue;
        if (r.row.tracker !== 'keyed' && r.row.tracker !== 'keyless')
          throw new Error(
            `${r.row.name}: a partition stands in front of the keyed or the keyless tracker, not ${r.row.tracker}`,
          );
        const tracker = await world.partitioned(r.row.tracker, lost);
        if (activityOperationOf(r.row)) tracker.watchHeld?.(r.tag, () => operator(r));
        ownTracker.set(r.runId, tracker);
      }
      if (kills.length > 0) {
        plan.poll = async (state) => {
          for (const k of kills) await k.poll(state);
        };
      }
      return plan;
    },
    start: (client, run) => {
      if (run.row.fickle) world.fickleRuns.set(run.runId, run.row.fickle);
      return client.workflow.start(run.row.workflowType, runOptions(run, trackerOf(run).url));
    },
    onPoint(run, event) {
      person.notice(
        {
          client: run.client,
          workflowId: run.workflowId,
          runId: run.runId,
          repo: run.tag,
          store: trackerOf(run).store,
          mode: run.row.person,
        },
        event,
      );
    },
    settle: () => person.settle(),
    async check(run, result, failure): Promise<Counts> {
      const failed = person.failureOf(run.workflowId);
      if (failed) throw new Error(failed);
      if (activityOperationOf(run.row)) {
        const operation = operations.get(run.workflowId);
        if (!operation) throw new Error('no call of the run got stuck behind the partition: the operator never acted');
        await operation;
      }
      if (trackerOf(run).holdRanOut?.(run.tag))
        throw new Error(
          `the run's first write was held (a slow tracker, or a partition) until its cap and the run never came back for it: ` +
            'its counts would hang on that clock',
        );
      // A run a person stopped is held to the replies its history holds: a write of theirs it never made
      // is what the stop left half done, not a loss.
      const stopped = failure !== undefined && !!run.row.faults?.some((f) => f.stops?.end === failure);
      const expected =
        run.row.expects === 'history' || stopped
          ? await effectsInHistory(run.client, run.workflowId)
          : (run.row.expects ?? TRIAGE_EFFECTS);
      const counted = countEffects(trackerOf(run).store, run.tag, run.runId, expected);
      const { dups, diverged, orphans, details } = counted;
      const [missing, halfDone] = stopped ? [0, counted.missing] : [counted.missing, 0];
      const asks = person.asksFor(run.workflowId);
      if ((await payloads.objectsOf(run.workflowId)).length > 0) {
        stored.runs += 1;
        stored.orphans += await storeOrphans(run.client, run.workflowId, payloads);
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
      return {
        dups,
        diverged,
        missing,
        orphans,
        halfDone,
        asks,
        calls: await world.modelCalls(run.runId),
        approvals: approvalsRequested,
        details,
      };
    },
    stats: () => ({
      mcpKills: mcp.kills,
      mcpWrites: mcp.requests,
      trackerKills: trackerKills.kills,
      trackerWrites: trackerKills.requests,
      storedRuns: stored.runs,
      storeOrphans: stored.orphans,
    }),
    close: async () => {
      if (ownsWorld) await world.close();
    },
  };
}

/** The agent suite for `runSweep`: its world is built on the sweep's server. */
export function agentSuite(variants: readonly AgentRow[]): SuiteFactory {
  const factory = async (server: SweepServer) => agentSuiteOn(await startWorld({ server }), variants, true);
  return Object.assign(factory, { searchAttributes: AGENT_SEARCH_ATTRIBUTES });
}
