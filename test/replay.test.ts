// Saved histories of every variant (`npm run save-histories`, binary protobuf), each with a worker killed mid-run,
// replayed against today's workflow code: a change that would break a run already under way (one
// waiting days for a person, say) fails here, not in production.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { workflowSources } from '../workers/create-worker';
import { sweepWorkflowsPath } from '../agent-sweep/world';
import { ROOT } from './helpers/processes';

// `current/` holds histories made by today's code; each sibling folder, those of an older version of
// it (named for the change that followed), kept while a `patched()` branch still serves such runs.
const dir = path.join(ROOT, 'testdata', 'histories');
const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.binpb'))
  .sort();

test("there is a saved history of today's code for every variant of the sweep, and older ones beside them", async () => {
  const { selectRows } = await import('../agent-sweep/rows');
  const current = files.filter((f) => f.startsWith(`current${path.sep}`)).map((f) => path.basename(f));
  const saved = new Set(current.map((f) => f.replace(/-\d+\.binpb$/, '')));
  expect(files.length).toBeGreaterThan(current.length);
  expect(
    selectRows()
      .map((v) => v.name)
      .filter((v) => !saved.has(v)),
  ).toEqual([]);
});

test('every saved history replays against the current workflow code', async () => {
  // The sweep's worker serves the loop and the designs it is compared with.
  const { workflowsPath, interceptorModules } = workflowSources(sweepWorkflowsPath());
  const histories = files.map((f) => ({
    workflowId: f,
    history: temporal.api.history.v1.History.decode(readFileSync(path.join(dir, f))),
  }));
  const failures: string[] = [];
  // The crash-point sink is never called in replay, but a worker must know it (as every worker does).
  const sinks = { crashPoints: { reached: { fn: () => {} } } };
  for await (const result of Worker.runReplayHistories(
    { workflowsPath, interceptors: { workflowModules: interceptorModules }, sinks },
    histories,
  )) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  expect(failures).toEqual([]);
}, 120_000);
