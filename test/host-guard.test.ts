// DNS rebinding: a web page that rebinds its name to 127.0.0.1 sends its own name as Host and its
// origin as Origin. The tracker, the model server and the codec server answer 403 before any route
// runs, as the MCP server does; loopback names and the names given by flag are served.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildCodecServer } from '../codec/app';
import { AesGcmCodec } from '../common/payload-codec';
import { boundHostPolicy, hostRefusal, httpPolicy, networkFlags, networkPolicyOf } from '../common/http-guard';
import { buildModelServer } from '../model/app';
import { buildTracker } from '../tracker/app';
import { Store } from '../tracker/store';

/** One raw HTTP request with the headers given, Host included (as curl -H 'Host: ...' sends it). */
function send(port: number, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: body ? 'POST' : 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the tracker refuses a rebinding page', () => {
  test('Host evil.example with no token: 403, nothing filed, nothing read; 127.0.0.1 and localhost are served', async () => {
    const store = new Store(':memory:');
    const app = buildTracker({ store });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    try {
      const evil = { host: `evil.example:${port}`, origin: `http://evil.example:${port}` };
      const json = { 'content-type': 'application/json' };
      const filed = await send(port, '/repos/victim/issues', { ...evil, ...json }, '{"title":"t","body":"b"}');
      expect(filed.status).toBe(403);
      expect(JSON.parse(filed.body)).toEqual({
        error: 'forbidden_host',
        message: expect.stringContaining(`Host "evil.example:${port}" is not one this server answers to`),
      });
      expect(store.counts('victim')).toEqual({ issues: 0, comments: 0 });
      expect((await send(port, '/repos/victim/issues?q=', evil)).status).toBe(403);
      expect((await send(port, '/idempotency/k', evil)).status).toBe(403);
      // A page on a loopback origin that names the tracker by a name it does not answer to: refused too.
      expect((await send(port, '/health', { host: `evil.example:${port}` })).status).toBe(403);
      // An allowed Host with a foreign Origin: a page calling across origins.
      const crossOrigin = await send(port, '/health', { host: `127.0.0.1:${port}`, origin: 'http://evil.example' });
      expect(crossOrigin.status).toBe(403);

      const own = await send(
        port,
        '/repos/victim/issues',
        { host: `127.0.0.1:${port}`, ...json },
        '{"title":"t","body":"b"}',
      );
      expect(own.status).toBe(201);
      expect((await send(port, '/health', { host: `localhost:${port}` })).status).toBe(200);
      expect(store.counts('victim')).toEqual({ issues: 1, comments: 0 });
    } finally {
      await app.close();
    }
  });

  test('a name given by flag (--allow-host tracker, as docker-compose runs it) is served', async () => {
    const app = buildTracker({ store: new Store(':memory:'), hosts: boundHostPolicy('0.0.0.0', ['tracker']) });
    expect((await app.inject({ url: '/health', headers: { host: 'tracker:4100' } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/health', headers: { host: 'evil.example' } })).statusCode).toBe(403);
  });
});

test('the model server refuses a rebinding page before it plays (or counts) a reply', async () => {
  const app = buildModelServer();
  const body = { model: 'triage-script', messages: [{ role: 'user', content: 'x' }], user: 'run-1' };
  const evil = await app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { host: 'evil.example' },
    payload: body,
  });
  expect(evil.statusCode).toBe(403);
  expect((await app.inject({ url: '/calls?run=run-1', headers: { host: 'localhost' } })).json()).toEqual({
    run: 'run-1',
    calls: 0,
  });
});

test('the codec server refuses a rebinding page before it opens a payload', async () => {
  const app = buildCodecServer({
    codec: new AesGcmCodec(new Map([['k1', randomBytes(32)]]), 'k1'),
    origins: ['http://localhost:8233'],
  });
  const headers = { host: 'evil.example:8081', origin: 'http://localhost:8233', 'content-type': 'application/json' };
  const evil = await app.inject({ method: 'POST', url: '/decode', headers, payload: { payloads: [] } });
  expect(evil.statusCode).toBe(403);
  const own = await app.inject({
    method: 'POST',
    url: '/decode',
    headers: { ...headers, host: 'localhost:8081' },
    payload: { payloads: [] },
  });
  expect(own.statusCode).toBe(200);
});

test('boundHostPolicy: the bound name when it is one, never a wildcard', () => {
  expect(boundHostPolicy('0.0.0.0').hosts).toEqual(httpPolicy().hosts);
  expect(boundHostPolicy('10.0.0.5', ['tracker']).hosts).toEqual([...httpPolicy().hosts, '10.0.0.5', 'tracker']);
  expect(hostRefusal({ host: '10.0.0.5:4100' }, boundHostPolicy('10.0.0.5'))).toBeNull();
});

test("every server's network flags are read by one parser: what it binds to, and the names and origins it answers to", () => {
  const defaults = Object.fromEntries(Object.entries(networkFlags()).map(([k, v]) => [k, v.default]));
  expect(networkPolicyOf(defaults)).toEqual({
    bind: '127.0.0.1',
    hosts: { hosts: ['localhost', '127.0.0.1', '[::1]'], origins: [] },
  });
  expect(
    networkPolicyOf({ host: 'tracker', 'allow-host': 'a.example, b.example', 'allow-origin': 'http://ui:8233' }),
  ).toEqual({
    bind: 'tracker',
    hosts: {
      hosts: ['localhost', '127.0.0.1', '[::1]', 'tracker', 'a.example', 'b.example'],
      origins: ['http://ui:8233'],
    },
  });
  // A wildcard bind names no host of its own; the codec's Web UI origins are its default only.
  expect(networkPolicyOf({ host: '0.0.0.0' }).hosts.hosts).not.toContain('0.0.0.0');
  expect(networkFlags('http://localhost:8233')['allow-origin'].default).toBe('http://localhost:8233');
});
