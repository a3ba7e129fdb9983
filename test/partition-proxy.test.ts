// The sweep's network partition (sweep/hosts/partition-proxy.ts) in front of a real tracker on HTTP:
// a run's first write, or its reply, is lost until the run's next request comes, not until a time; every
// other request passes as it came. The rows under "the network loses a request or its reply" hang on it.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildTracker } from '../tracker/app';
import { Store } from '../tracker/store';
import { PartitionProxy, type Lost } from '../sweep/hosts/partition-proxy';

const json = { 'content-type': 'application/json' };
const issue = (title: string) => JSON.stringify({ title, body: 'behind a partition' });
const opened: { app: FastifyInstance; proxy: PartitionProxy; store: Store }[] = [];

async function partitioned(lost: Lost, capMs = 20_000) {
  const store = new Store(':memory:');
  const app = buildTracker({ store });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const proxy = await PartitionProxy.start(
    `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    lost,
    capMs,
  );
  opened.push({ app, proxy, store });
  const write = (repo: string, title: string, key = title) =>
    fetch(`${proxy.url}/repos/${repo}/issues`, {
      method: 'POST',
      headers: { ...json, 'idempotency-key': key },
      body: issue(title),
    });
  return { store, proxy, write };
}

afterAll(async () => {
  for (const { app, proxy, store } of opened) {
    await proxy.close();
    await app.close();
    store.close();
  }
});

/** Whether a promise has settled within `ms`. */
const settledWithin = (p: Promise<unknown>, ms: number) =>
  Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    new Promise((r) => setTimeout(() => r(false), ms)),
  ]);

test.each([
  ['request', 0],
  ['reply', 1],
] as const)(
  'the %s lost: the first write gets no answer until the run comes back, late; the receiver holds %i issue then',
  async (lost, issuesAtTheReceiver) => {
    const { store, proxy, write } = await partitioned(lost);
    const first = write('run-a', 'First');
    // No answer while the run stays away: only its next request (or the 20 s cap) ends the partition.
    expect(await settledWithin(first, 1_000)).toBe(false);
    expect(store.counts('run-a').issues).toBe(issuesAtTheReceiver);
    // Another run's first write is its own partition; a run's later write passes and heals its own.
    expect(await settledWithin(write('run-b', 'Other'), 200)).toBe(false);
    const retry = await write('run-a', 'First');
    await expect(first).rejects.toThrow();
    expect(retry.status).toBe(201);
    // With the key, the retry of a write the receiver made is answered with it: one issue either way.
    expect(store.counts('run-a').issues).toBe(1);
    // Reads pass as they came.
    const found = await fetch(`${proxy.url}/repos/run-a/issues?q=First`);
    expect(((await found.json()) as { items: unknown[] }).items).toHaveLength(1);
    expect(proxy.ranOut('run-a')).toBe(false);
  },
  20_000,
);

test('a run that never comes back is let go at the cap, and the proxy says so', async () => {
  const { proxy, write } = await partitioned('reply', 300);
  await expect(write('run-c', 'Alone')).rejects.toThrow();
  expect(proxy.ranOut('run-c')).toBe(true);
  expect(proxy.ranOut('run-d')).toBe(false);
});

test('a path that names no repository is passed on and heals nothing', async () => {
  const { proxy } = await partitioned('request');
  const health = await fetch(`${proxy.url}/health`);
  expect(health.status).toBe(200);
  expect(((await health.json()) as { ok: boolean }).ok).toBe(true);
});

test("an operator watching the proxy hears of each run's held write once, after the receiver acted", async () => {
  const held: string[] = [];
  const { store, proxy, write } = await partitioned('reply', 20_000);
  // Told once the receiver has acted and its answer is dropped: the call now hangs. `run-f` is not watched.
  for (const repo of ['run-d', 'run-e'])
    proxy.watch(repo, () => held.push(`${repo}: ${store.counts(repo).issues} issue`));
  const first = write('run-d', 'Stuck');
  const other = write('run-e', 'Stuck2');
  const unwatched = write('run-f', 'Stuck3');
  for (const p of [first, other, unwatched]) p.catch(() => undefined); // cut when the partition heals
  expect(await settledWithin(Promise.all([first, other]), 500)).toBe(false);
  expect(held.sort()).toEqual(['run-d: 1 issue', 'run-e: 1 issue']);
  // The run's next request heals its partition and is not held: nothing more to hear of.
  expect((await write('run-d', 'Stuck')).status).toBe(201);
  expect((await write('run-e', 'Stuck2')).status).toBe(201);
  expect((await write('run-f', 'Stuck3')).status).toBe(201);
  await Promise.allSettled([first, other, unwatched]);
  expect(held).toHaveLength(2);
});
