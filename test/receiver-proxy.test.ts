// The engine's proxy in front of a declared receiver: a death fails exactly the held calls; a slow hold ends when the run comes back.
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { ReceiverProxy } from '../sweep/hosts/receiver-proxy';
import { RUN_HEADER } from '../sweep/plugin';

/** A receiver that records every request it acts on, in order. */
async function receiver(): Promise<{ url: string; acted: string[]; close(): Promise<void> }> {
  const acted: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      acted.push(`${req.method} ${req.url} ${body}`);
      res.writeHead(201, { 'content-type': 'text/plain' }).end(`done ${body}`);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    acted,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A request through the proxy as a run's activity makes it: its answer, or `cut` when the connection was cut. */
function call(url: string, run: string | null, method: string, path: string, body = ''): Promise<string> {
  return new Promise((resolve) => {
    const req = http.request(
      `${url}${path}`,
      { method, headers: run ? { [RUN_HEADER]: run } : {}, agent: false },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c));
        res.on('end', () => resolve(`${res.statusCode} ${text}`));
        res.on('error', () => resolve('cut'));
      },
    );
    req.on('error', () => resolve('cut'));
    req.end(body);
  });
}

describe('the proxy in front of a declared receiver', () => {
  test("receiver-dies: the receiver acts, dies and comes back before its caller's connection is cut; the retry and other runs pass", async () => {
    const shop = await receiver();
    const events: string[] = [];
    let releaseDeath!: () => void;
    const proxy = await ReceiverProxy.start(shop.url, {
      runHeader: RUN_HEADER,
      capMs: 60_000,
      die: async () => {
        events.push('died');
        await new Promise<void>((resolve) => (releaseDeath = resolve));
        events.push('back');
      },
    });
    try {
      proxy.strike('run-a', 'dies');
      const first = call(proxy.url, 'run-a', 'POST', '/charges', 'a').then((r) => (events.push(`a: ${r}`), r));
      while (!events.includes('died')) await new Promise((r) => setTimeout(r, 5));
      // The receiver acted before it died.
      expect(shop.acted).toEqual(['POST /charges a']);
      // While it restarts, another run's request waits for it, and is then answered, not cut.
      const other = call(proxy.url, 'run-b', 'POST', '/charges', 'b');
      await new Promise((r) => setTimeout(r, 50));
      expect(shop.acted).toHaveLength(1);
      expect(events).toEqual(['died']);
      releaseDeath();
      expect(await first).toBe('cut');
      expect(events).toEqual(['died', 'back', 'a: cut']);
      expect(await other).toBe('201 done b');
      // Its retry (the same write) passes: each write meets one death. A read never does.
      expect(await call(proxy.url, 'run-a', 'POST', '/charges', 'a')).toBe('201 done a');
      expect(await call(proxy.url, 'run-a', 'GET', '/damage?order=a')).toBe('201 done ');
      expect(proxy.deaths).toEqual({ kills: 1, requests: 1 });
      // A request that names no run is passed on as it came.
      expect(await call(proxy.url, null, 'POST', '/charges', 'c')).toBe('201 done c');
      expect(shop.acted).toEqual([
        'POST /charges a',
        'POST /charges b',
        'POST /charges a',
        'GET /damage?order=a ',
        'POST /charges c',
      ]);
    } finally {
      await proxy.close();
      await shop.close();
    }
  });

  test("slow-receiver: a run's first write waits until the run comes back; its next request goes first; a run that never comes back is remembered", async () => {
    const shop = await receiver();
    const proxy = await ReceiverProxy.start(shop.url, {
      runHeader: RUN_HEADER,
      capMs: 300,
      die: () => Promise.reject(new Error('no death here')),
    });
    try {
      proxy.strike('run-a', 'slow');
      const held = call(proxy.url, 'run-a', 'POST', '/charges', 'first');
      await new Promise((r) => setTimeout(r, 50));
      expect(shop.acted).toEqual([]);
      // The run comes back (its activity timed out and retried): that request first, then the held one.
      expect(await call(proxy.url, 'run-a', 'POST', '/charges', 'retry')).toBe('201 done retry');
      expect(await held).toBe('201 done first');
      expect(shop.acted).toEqual(['POST /charges retry', 'POST /charges first']);
      expect(proxy.ranOut('run-a')).toBe(false);
      // Only the first write is held.
      expect(await call(proxy.url, 'run-a', 'POST', '/mails', 'x')).toBe('201 done x');
      // A run that never comes back: the hold ends at the cap, and the run's counts are not to be trusted.
      proxy.strike('run-b', 'slow');
      expect(await call(proxy.url, 'run-b', 'POST', '/charges', 'b')).toBe('201 done b');
      expect(proxy.ranOut('run-b')).toBe(true);
    } finally {
      await proxy.close();
      await shop.close();
    }
  });

  test('a partition: the first write, or its reply, is lost until the run comes back; then the held connection is cut and the run is answered', async () => {
    const shop = await receiver();
    const proxy = await ReceiverProxy.start(shop.url, {
      runHeader: RUN_HEADER,
      capMs: 60_000,
      die: () => Promise.reject(new Error('no death here')),
    });
    try {
      const held: string[] = [];
      proxy.strike('run-a', 'request-lost');
      proxy.strike('run-b', 'reply-lost');
      proxy.whenHeld('run-a', () => held.push('run-a'));
      proxy.whenHeld('run-b', () => held.push(`run-b after ${shop.acted.length} acted`));
      const lostRequest = call(proxy.url, 'run-a', 'POST', '/charges', 'a');
      const lostReply = call(proxy.url, 'run-b', 'POST', '/charges', 'b');
      while (held.length < 2) await new Promise((r) => setTimeout(r, 5));
      // The lost request never reached the shop; the lost reply's write did, before its operator was told.
      expect(shop.acted).toEqual(['POST /charges b']);
      expect(held.sort()).toEqual(['run-a', 'run-b after 1 acted']);
      expect(await call(proxy.url, 'run-a', 'POST', '/charges', 'a')).toBe('201 done a');
      expect(await lostRequest).toBe('cut');
      expect(await call(proxy.url, 'run-b', 'GET', '/damage?order=b')).toBe('201 done ');
      expect(await lostReply).toBe('cut');
      expect(shop.acted).toEqual(['POST /charges b', 'POST /charges a', 'GET /damage?order=b ']);
      expect([proxy.ranOut('run-a'), proxy.ranOut('run-b')]).toEqual([false, false]);
    } finally {
      await proxy.close();
      await shop.close();
    }
  });
});
