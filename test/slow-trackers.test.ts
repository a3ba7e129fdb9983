// The sweep's slow trackers decide what a run does by the run's own requests, not by how late they
// come: a retry or a lookup 6.5 s after the first write (later than the tool's 4 s timeout, and later
// than the 6 s after which these trackers once let the held write commit by itself) meets the write
// still held, as a prompt one does. The rows under "the receiver is slower than the timeout" print
// the same counts on a busy machine because of it (test/sweep.loaded.full.test.ts sweeps them so).
import { buildTracker } from '../tracker/app';
import { REPLAYED_HEADER } from '../tracker/idempotency';
import { Store } from '../tracker/store';
import { slowTrackerSettings, type SlowTrackerName } from '../agent-sweep/world';

const LATE_MS = 6_500;
const issue = { title: 'Slow', body: 'held before it commits' };
const json = { 'content-type': 'application/json' };

function slowTracker(name: SlowTrackerName) {
  const store = new Store(':memory:');
  const { hold, settings } = slowTrackerSettings(name);
  const app = buildTracker({ store, ...settings });
  const write = (key: string) =>
    app.inject({
      method: 'POST',
      url: '/repos/demo/issues',
      headers: { ...json, 'idempotency-key': key },
      payload: issue,
    });
  const search = () => app.inject({ method: 'GET', url: '/repos/demo/issues?q=Slow' });
  return { store, hold, write, search };
}

const late = () => new Promise((r) => setTimeout(r, LATE_MS));

test('a caller that comes back late still finds its first write held: the counts hang on requests, not on a clock', async () => {
  const unclaimed = slowTracker('slowKeyedUnclaimed');
  const claimed = slowTracker('slowKeyed');
  const silent = slowTracker('slowKeylessSilent');
  const firsts = [unclaimed.write('k'), claimed.write('k'), silent.write('k')];
  await late();

  // No claim of the key in flight: the late retry acts, then the held write commits too. Two issues.
  const retry = await unclaimed.write('k');
  expect(retry.statusCode).toBe(201);
  expect(retry.headers[REPLAYED_HEADER]).toBeUndefined();
  // The key claimed in flight: the late retry is told 409, the held write commits, the next retry gets its response.
  expect((await claimed.write('k')).statusCode).toBe(409);
  // No commit deadline stated: the late lookup finds nothing, and the held write commits after it.
  expect((await silent.search()).json()).toEqual({ items: [] });

  const [first, claimedFirst, silentFirst] = await Promise.all(firsts);
  expect([first.statusCode, claimedFirst.statusCode, silentFirst.statusCode]).toEqual([201, 201, 201]);
  const replay = await claimed.write('k');
  expect(replay.headers[REPLAYED_HEADER]).toBe('true');
  expect(unclaimed.store.counts('demo')).toEqual({ issues: 2, comments: 0 });
  expect(claimed.store.counts('demo')).toEqual({ issues: 1, comments: 0 });
  expect(silent.store.counts('demo')).toEqual({ issues: 1, comments: 0 });
  for (const t of [unclaimed, claimed, silent]) expect(t.hold.ranOut('demo')).toBe(false);
}, 30_000);
