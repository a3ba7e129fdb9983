import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { workflowSources } from '../workers/create-worker';
import { ROOT } from './helpers/processes';

// Saved histories of every variant (`npm run save-histories`, binary protobuf), each with a worker killed mid-run,
// replayed against today's workflow code: a change that would break a run already under way (one
// waiting days for a person, say) fails here, not in production.

const dir = path.join(ROOT, 'testdata', 'histories');
const files = readdirSync(dir).filter((f) => f.endsWith('.binpb')).sort();

test('there is a saved history for every variant of the sweep', async () => {
  const { selectVariants } = await import('../sweep/variants');
  const saved = new Set(files.map((f) => f.replace(/-\d+\.binpb$/, '')));
  expect(selectVariants().map((v) => v.name).filter((v) => !saved.has(v))).toEqual([]);
});

test('every saved history replays against the current workflow code', async () => {
  const { workflowsPath, interceptorModules } = workflowSources();
  const histories = files.map((f) => ({ workflowId: f, history: temporal.api.history.v1.History.decode(readFileSync(path.join(dir, f))) }));
  const failures: string[] = [];
  // The crash-point sink is never called in replay, but a worker must know it (as every worker does).
  const sinks = { crashPoints: { reached: { fn: () => {} } } };
  for await (const result of Worker.runReplayHistories({ workflowsPath, interceptors: { workflowModules: interceptorModules }, sinks }, histories)) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  expect(failures).toEqual([]);
}, 120_000);
