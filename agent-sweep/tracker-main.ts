// The tracker under a crash harness: holds each write at `received` or `committed` until the harness kills it.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildTracker } from '../tracker/app';
import { Store } from '../tracker/store';
import { LINE_PREFIX, type CrashEvent } from '../sweep/worker/line-protocol';

/**
 * The tracker as its own process under a crash harness: each write, the first time
 * it reaches the plan's point (by its repo and request fingerprint), is held there and reported on
 * stderr, and the harness SIGKILLs the process when it chooses, then starts the next one on the same
 * database file and port. Which writes were already held is kept in a file, so a retry of the same
 * write on the restarted tracker goes through.
 *
 * `--port P --db FILE [--keyless]`. Environment: `TRACKER_CRASH_PLAN`, a JSON file holding a
 * {@link TrackerCrashPlan}; `TRACKER_STANDBY=1` to load everything and wait for a line on stdin before
 * opening the database and listening, so the next tracker is ready before the current one is killed.
 */
export interface TrackerCrashPlan {
  /** `received`: nothing of the write is written yet. `committed`: it is committed, its reply not sent. */
  point: 'received' | 'committed';
  /** One `repo fingerprint` per line: writes already held, by this process or one before it. */
  stateFile: string;
}

const planFile = process.env.TRACKER_CRASH_PLAN;
if (!planFile) {
  console.error(
    'TRACKER_CRASH_PLAN is not set: it names the crash plan of this tracker (see agent-sweep/tracker-main.ts)',
  );
  process.exit(2);
}
const plan = JSON.parse(readFileSync(planFile, 'utf8')) as TrackerCrashPlan;
const { values } = parseArgs({
  options: { port: { type: 'string' }, db: { type: 'string' }, keyless: { type: 'boolean', default: false } },
});
let held = new Set<string>();

/** Holds the write at the plan's point the first time it gets there, until the harness's SIGKILL. */
function point(name: TrackerCrashPlan['point']) {
  return async (repo: string, fingerprint: string): Promise<void> => {
    const id = `${repo} ${fingerprint}`;
    if (name !== plan.point || held.has(id)) return;
    held.add(id);
    appendFileSync(plan.stateFile, `${id}\n`);
    const event: CrashEvent = {
      type: 'parked',
      workflowId: repo,
      index: 0,
      name: `tracker.${name}`,
      detail: id,
      at: Date.now(),
    };
    process.stderr.write(`${LINE_PREFIX}${JSON.stringify(event)}\n`);
    return new Promise<void>(() => {});
  };
}

async function serve(): Promise<void> {
  // Read when serving starts, not at launch: a standby launched earlier must see the latest writes held.
  held = new Set(existsSync(plan.stateFile) ? readFileSync(plan.stateFile, 'utf8').split('\n').filter(Boolean) : []);
  // `normal` sync, as the sweep's other trackers: every commit survives the SIGKILL of this process.
  const store = new Store(values.db!, 'normal');
  const app = buildTracker({
    store,
    keyless: values.keyless,
    points: { received: point('received'), committed: point('committed') },
  });
  const address = await app.listen({ port: Number(values.port ?? 0), host: '127.0.0.1' });
  console.log(`tracker listening on ${address}`);
}

if (process.env.TRACKER_STANDBY === '1') process.stdin.once('data', () => void serve());
else void serve();
