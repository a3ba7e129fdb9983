// The tracker as its own process, killed by SIGKILL at one of its own points and started again on the
// same database file and port: no Temporal here, only the processes and the file.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ReceiverKills } from '../sweep/hosts/receiver-host';
import { TrackerHost } from '../agent-sweep/tracker-host';
import type { TrackerCrashPlan } from '../agent-sweep/tracker-main';
import { Store } from '../tracker/store';

function trackerHost(point: TrackerCrashPlan['point'], keyless = false) {
  const host = new TrackerHost(`tracker-${point}`, mkdtempSync(path.join(os.tmpdir(), 'receiver-kills-')), {
    point,
    keyless,
  });
  return { host, db: host.db };
}

const post = (url: string, key: string) =>
  fetch(`${url}/repos/run-1/issues`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ title: 'Checkout fails', body: 'with a coupon' }),
  });

async function until(what: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !what(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(what()).toBe(true);
}

describe('a tracker process killed at its own points', () => {
  test.each(['received', 'committed'] as const)(
    'killed at %s: the request fails mid-call, the retry on the restarted tracker (same port, same file) leaves one issue',
    async (point) => {
      const { host, db } = trackerHost(point);
      await host.start();
      try {
        const url = host.url;
        const first = post(url, `k-${point}`).then(
          () => 'answered',
          (err: Error) => err.message,
        );
        await until(() => host.parked.size === 1);
        expect([...host.parked.keys()]).toEqual(['run-1']); // whose write it is: the repo
        const counter = { kills: 0, requests: 0 };
        const kills = new ReceiverKills(
          [
            {
              host,
              runs: [{ workflowId: 'wf-1' } as never],
              ownerOf: (repo) => (repo === 'run-1' ? 'wf-1' : undefined),
            },
          ],
          counter,
        );
        await kills.poll({ isParked: () => false, ended: new Set(), notStarted: new Set() });
        expect(counter).toEqual({ kills: 1, requests: 1 });
        expect(await first).toBe('fetch failed'); // the connection died with the process
        expect(host.url).toBe(url);
        const store = new Store(db, 'normal');
        expect(store.counts('run-1').issues).toBe(point === 'committed' ? 1 : 0);
        const retry = await post(url, `k-${point}`); // held once only: the retry goes through
        expect(retry.status).toBe(201);
        expect(retry.headers.get('idempotent-replayed')).toBe(point === 'committed' ? 'true' : null);
        expect(store.counts('run-1').issues).toBe(1);
        store.close();
      } finally {
        await host.close();
      }
    },
    60_000,
  );

  test('a tracker is not killed while a run that uses it is still moving', async () => {
    const { host } = trackerHost('received', true);
    await host.start();
    try {
      const first = post(host.url, 'k-moving').catch(() => null);
      await until(() => host.parked.size === 1);
      const counter = { kills: 0, requests: 0 };
      const runs = [{ workflowId: 'wf-1' }, { workflowId: 'wf-2' }] as never[];
      const kills = new ReceiverKills(
        [{ host, runs, ownerOf: (repo) => (repo === 'run-1' ? 'wf-1' : undefined) }],
        counter,
      );
      await kills.poll({ isParked: () => false, ended: new Set(), notStarted: new Set() });
      expect(counter.kills).toBe(0); // wf-2 may still send a request
      await kills.poll({ isParked: (id) => id === 'wf-2', ended: new Set(), notStarted: new Set() });
      expect(counter.kills).toBe(1);

      await first;
    } finally {
      await host.close();
    }
  }, 60_000);

  test('a run that has not started yet (a second clean run, waiting for its first) is out of the way, as an ended one', async () => {
    let restarts = 0;
    const host = {
      name: 'stand-in',
      parked: new Map([['run-1', 'POST /issues']]),
      restart: async () => void restarts++,
    };
    const runs = [{ workflowId: 'wf-1' }, { workflowId: 'wf-2' }] as never[];
    const counter = { kills: 0, requests: 0 };
    const kills = new ReceiverKills([{ host: host as never, runs, ownerOf: () => 'wf-1' }], counter);
    await kills.poll({ isParked: () => false, ended: new Set(), notStarted: new Set() });
    expect(restarts).toBe(0);
    await kills.poll({ isParked: () => false, ended: new Set(), notStarted: new Set(['wf-2']) });
    expect(counter).toEqual({ kills: 1, requests: 1 });
  });
});
