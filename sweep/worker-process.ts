import { readFileSync } from 'node:fs';
import { NativeConnection } from '@temporalio/worker';
import { runMain } from '../common/cli';
import { configFromEnv } from '../common/config';
import { setCrashHook, type PointName } from '../common/crash-points';
import { createAgentWorker } from '../workers/create-worker';
import { LINE_PREFIX, matches, type CrashEvent, type CrashPlan } from './crash-control';
import { SWEEP_WORKER_TUNING } from './tuning';

/**
 * A worker process for crash harnesses. It reports every crash point it reaches (a point reached
 * again right after itself, as by a retried workflow task, is reported once), and parks each
 * workflow named in its plan (`CRASH_PLAN`, a JSON file) at its target: that call never returns, and
 * every later point of the same workflow parks too, so nothing more happens for it until the harness
 * SIGKILLs the process. Other workflows keep running, so many scenarios can share one process.
 *
 * Environment: as `npm run worker`, plus `CRASH_PLAN` (optional) and `WORKFLOW_BUNDLE` (optional path
 * of a pre-built workflow bundle).
 */
async function main(): Promise<void> {
  const config = configFromEnv();
  const plan: CrashPlan = process.env.CRASH_PLAN
    ? (JSON.parse(readFileSync(process.env.CRASH_PLAN, 'utf8')) as CrashPlan)
    : { targets: {} };
  const counts = new Map<string, number>();
  const parked = new Set<string>();
  const faulted = new Set<string>();
  const emit = (event: CrashEvent) => process.stdout.write(`${LINE_PREFIX}${JSON.stringify(event)}\n`);

  const last = new Map<string, string>();

  setCrashHook((name: PointName, { workflowId, detail }) => {
    // A workflow task retried after its attempt timed out (a slow worker, a kill) decides the same
    // commands again: the same boundary, reached again. It keeps its index, so that the points a run
    // reaches do not depend on how busy the machine was.
    const repeat = last.get(workflowId) === `${name} ${detail}`;
    last.set(workflowId, `${name} ${detail}`);
    const index = (counts.get(workflowId) ?? 0) + (repeat ? 0 : 1);
    counts.set(workflowId, index);
    const target = plan.targets[workflowId];
    if (parked.has(workflowId) || (target && matches(target, index, name, detail))) {
      if (!parked.has(workflowId)) emit({ type: 'parked', workflowId, index, name, detail });
      parked.add(workflowId);
      return new Promise<void>(() => {}); // until SIGKILL
    }
    if (!repeat) emit({ type: 'point', workflowId, index, name, detail });
    const fault = plan.faults?.[workflowId];
    if (fault && fault.name === name && !faulted.has(`${workflowId} ${detail}`)) {
      faulted.add(`${workflowId} ${detail}`);
      throw new Error(`tool server died mid-call at ${name} (${detail})`);
    }
  });

  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const bundlePath = process.env.WORKFLOW_BUNDLE;
  const worker = await createAgentWorker({
    connection,
    ...config,
    workflowBundle: bundlePath ? { code: readFileSync(bundlePath, 'utf8') } : undefined,
    tuning: SWEEP_WORKER_TUNING,
  });
  emit({ type: 'ready' });
  await worker.run();
  await connection.close();
}

runMain(main);
