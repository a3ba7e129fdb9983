// A tracker that restarts while runs write to it: its own process, SIGKILLed and started again on the
// same port and SQLite file. A refused connection sent nothing, so the run sends the call again
// (`receiverDownMs`) instead of telling the model the tracker is gone; every run ends with exactly
// its effects, whenever the kills land.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Store } from '../tracker/store';
import { freePort, startChild, type Child } from './helpers/processes';
import { startRun } from './helpers/runs';
import { useSystemWithWorker } from './helpers/system';

const TASK_QUEUE = 'receiver-down-e2e';
const system = useSystemWithWorker(TASK_QUEUE);
const dir = mkdtempSync(path.join(os.tmpdir(), 'receiver-down-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A tracker process on a port and file of its own, which a test can kill and start again. */
class TrackerProcess {
  private child: Child | null = null;
  readonly db: string;
  url = '';
  constructor(
    readonly name: string,
    private readonly keyless: boolean,
    private port = 0,
  ) {
    this.db = path.join(dir, `${name}.sqlite`);
  }
  async start(): Promise<void> {
    this.port ||= await freePort();
    const args = ['--port', String(this.port), '--db', this.db, ...(this.keyless ? ['--keyless'] : [])];
    this.child = startChild('tracker/server.ts', args);
    await this.child.waitFor(/tracker listening/);
    this.url = `http://127.0.0.1:${this.port}`;
  }
  async kill(): Promise<void> {
    await this.child?.kill('SIGKILL');
    this.child = null;
  }
  /** What the tracker's file holds for a repo (read-only, beside the live process). */
  counts(repo: string) {
    const store = new Store(this.db);
    try {
      return store.counts(repo);
    } finally {
      store.close();
    }
  }
}

const trackers: TrackerProcess[] = [];
afterAll(async () => {
  for (const t of trackers) await t.kill();
});

const runInput = (repo: string, tracker: TrackerProcess) => ({
  repo,
  trackerUrl: tracker.url,
  ...(tracker.name.startsWith('keyless') ? { keyless: true } : {}),
  timeouts: { toolMs: 5_000, retryInitialMs: 200 },
});

test('a tracker down for three seconds while runs make their first writes: each run files its issues once', async () => {
  const tracker = new TrackerProcess('keyed-down', false);
  trackers.push(tracker);
  await tracker.start();
  await tracker.kill();
  const runs = await Promise.all(
    [1, 2, 3].map((i) => startRun(system().env.client, TASK_QUEUE, runInput(`down-${i}`, tracker))),
  );
  await new Promise((r) => setTimeout(r, 3_000));
  await tracker.start();
  const results = await Promise.all(runs.map((r) => r.handle.result()));
  for (const [i, result] of results.entries()) {
    expect(tracker.counts(`down-${i + 1}`)).toEqual({ issues: 2, comments: 1 });
    expect(result.answer).toMatch(/^Triage done\. Filed #1 and #2, commented on #1/);
    expect(result.calls.find((c) => c.callId === 'call_create_1')!.attempts).toBeGreaterThan(1);
  }
}, 120_000);

test('trackers SIGKILLed at random moments and restarted 0.3 s later: every run, keyed or keyless, exactly its effects', async () => {
  const keyed = new TrackerProcess('keyed-random', false);
  const keyless = new TrackerProcess('keyless-random', true);
  trackers.push(keyed, keyless);
  await Promise.all([keyed.start(), keyless.start()]);
  // A fixed seed: the same moments every time this test runs.
  let seed = 20261201;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  // Waves of four runs (two on each tracker) one after another, for as long as the kills go on, and at
  // least two (a busy machine may run a single wave while the six kills land).
  const runs: Array<{ tracker: TrackerProcess; repo: string; result: Promise<unknown> }> = [];
  let killing = true;
  const waves = (async () => {
    for (let wave = 0; killing || wave < 2; wave++) {
      const batch = await Promise.all(
        [keyed, keyed, keyless, keyless].map(async (tracker, i) => {
          const repo = `random-${wave}-${i}`;
          const { handle } = await startRun(system().env.client, TASK_QUEUE, runInput(repo, tracker));
          return { tracker, repo, result: handle.result() };
        }),
      );
      runs.push(...batch);
      await Promise.all(batch.map((r) => r.result));
    }
  })();
  for (const tracker of [keyed, keyless, keyed, keyless, keyed, keyless]) {
    await new Promise((r) => setTimeout(r, 50 + random() * 400));
    await tracker.kill();
    await new Promise((r) => setTimeout(r, 300));
    await tracker.start();
  }
  killing = false;
  await waves;
  const counts = runs.map((r) => ({ repo: r.repo, ...r.tracker.counts(r.repo) }));
  expect(counts).toEqual(runs.map((r) => ({ repo: r.repo, issues: 2, comments: 1 })));
}, 180_000);
