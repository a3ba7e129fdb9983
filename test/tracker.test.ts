// The tracker over HTTP: issues, comments, search, idempotency keys, claims, deadlines and bad input.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildTracker } from '../tracker/app';
import { REPLAYED_HEADER, RETENTION_HEADER } from '../tracker/idempotency';
import { SlowCommits } from '../sweep/faults';
import { Store } from '../tracker/store';
import type { ApplicationFailure } from '@temporalio/common';
import { ROOT, startChild } from './helpers/processes';
import { callTrackerTool, lookupTrackerCall } from '../tracker/tools';

const json = { 'content-type': 'application/json' };

function tracker(options: { keyless?: boolean; keyTtlMs?: number; now?: () => number } = {}) {
  const store = new Store(':memory:');
  const app = buildTracker({ store, ...options });
  return { app, store };
}

async function createIssue(app: FastifyInstance, payload: unknown, key?: string) {
  return app.inject({
    method: 'POST',
    url: '/repos/demo/issues',
    headers: key === undefined ? json : { ...json, 'idempotency-key': key },
    payload: payload as object,
  });
}

describe('tracker: issues, comments and search', () => {
  test('creates numbered issues per repo, comments on them, and finds them by text in comments too', async () => {
    const { app } = tracker();
    const a = await createIssue(app, { title: 'Login fails', body: 'since 2.3', labels: ['bug'] });
    const b = await createIssue(app, { title: 'Dark mode', body: 'please' });
    expect(a.statusCode).toBe(201);
    expect(a.json()).toMatchObject({ number: 1, title: 'Login fails', labels: ['bug'] });
    expect(b.json()).toMatchObject({ number: 2, labels: [] });

    const c = await app.inject({
      method: 'POST',
      url: '/repos/demo/issues/1/comments',
      headers: json,
      payload: { body: 'seen on Safari' },
    });
    expect(c.statusCode).toBe(201);
    expect(c.json()).toMatchObject({ issueNumber: 1, body: 'seen on Safari' });

    const found = await app.inject({ method: 'GET', url: '/repos/demo/issues?q=Safari' });
    expect(found.json().items.map((i: { number: number }) => i.number)).toEqual([1]);
    expect(found.json().items[0].comments).toHaveLength(1);
    const all = await app.inject({ method: 'GET', url: '/repos/demo/issues' });
    expect(all.json().items).toHaveLength(2);
    const other = await app.inject({ method: 'GET', url: '/repos/other/issues' });
    expect(other.json().items).toHaveLength(0);

    const one = await app.inject({ method: 'GET', url: '/repos/demo/issues/1' });
    expect(one.json()).toMatchObject({ number: 1, comments: [{ body: 'seen on Safari' }] });
    expect((await app.inject({ method: 'GET', url: '/repos/demo/issues/9' })).statusCode).toBe(404);
  });

  test('search changes nothing', async () => {
    const { app, store } = tracker();
    await createIssue(app, { title: 't', body: 'b' });
    await app.inject({ method: 'GET', url: '/repos/demo/issues?q=t' });
    expect(store.counts('demo')).toEqual({ issues: 1, comments: 0 });
  });

  test('a comment on a missing issue is a 404 and leaves no comment', async () => {
    const { app, store } = tracker();
    const res = await app.inject({
      method: 'POST',
      url: '/repos/demo/issues/3/comments',
      headers: json,
      payload: { body: 'x' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'issue_not_found', message: 'no issue 3 in demo' });
    expect(store.counts('demo').comments).toBe(0);
  });
});

describe('tracker: idempotency keys', () => {
  test('a repeat with the same key and payload replays the first response and creates nothing', async () => {
    const { app, store } = tracker();
    const first = await createIssue(app, { title: 'Crash', body: 'x' }, 'k1');
    const again = await createIssue(app, { body: 'x', title: 'Crash' }, 'k1'); // field order does not matter
    expect(first.statusCode).toBe(201);
    expect(first.headers[REPLAYED_HEADER]).toBeUndefined();
    expect(first.headers[RETENTION_HEADER]).toBe('86400');
    expect(again.statusCode).toBe(201);
    expect(again.headers[REPLAYED_HEADER]).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(store.counts('demo').issues).toBe(1);
  });

  test('the same key with another payload is a 422 and creates nothing', async () => {
    const { app, store } = tracker();
    await createIssue(app, { title: 'A', body: 'x' }, 'k1');
    const res = await createIssue(app, { title: 'B', body: 'x' }, 'k1');
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toBe('idempotency_key_reused');
    expect(store.counts('demo').issues).toBe(1);
  });

  test('GET /idempotency/:key answers whether a keyed request happened, and what it returned', async () => {
    const { app } = tracker();
    const first = await createIssue(app, { title: 'A', body: 'x' }, 'k-lookup');
    const hit = await app.inject({ method: 'GET', url: '/idempotency/k-lookup' });
    expect(hit.statusCode).toBe(200);
    // With the request the key was first used for, so a lookup can tell whether it is the caller's call.
    expect(hit.json()).toEqual({
      key: 'k-lookup',
      status: 201,
      body: first.json(),
      request: { method: 'POST', path: '/repos/demo/issues', body: { title: 'A', body: 'x' } },
    });
    const miss = await app.inject({ method: 'GET', url: '/idempotency/never-sent' });
    expect(miss.statusCode).toBe(404);
    expect(miss.json().error).toBe('key_not_found');
  });

  test('after the retention period a key counts as new', async () => {
    let clock = 1_000_000;
    const { app, store } = tracker({ keyTtlMs: 60_000, now: () => clock });
    const first = await createIssue(app, { title: 'A', body: 'x' }, 'k1');
    expect(first.headers[RETENTION_HEADER]).toBe('60');
    clock += 59_999;
    expect((await createIssue(app, { title: 'A', body: 'x' }, 'k1')).headers[REPLAYED_HEADER]).toBe('true');
    clock += 1;
    // The tracker knows the key existed: "expired" (410) is not "never sent" (404), which a lookup
    // would read as "the call did not happen".
    const expired = await app.inject({ method: 'GET', url: '/idempotency/k1' });
    expect([expired.statusCode, expired.json().error]).toEqual([410, 'key_expired']);
    const late = await createIssue(app, { title: 'A', body: 'x' }, 'k1');
    expect(late.headers[REPLAYED_HEADER]).toBeUndefined();
    expect(store.counts('demo').issues).toBe(2);
  });

  test('a lookup of a call whose key expired finds it by its trace line, never reads "expired" as "did not happen"', async () => {
    let clock = 1_000_000;
    const { app } = tracker({ keyTtlMs: 60_000, now: () => clock });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const ctx = { trackerUrl: url, repo: 'demo', key: 'k-expiring' };
      await callTrackerTool('create_issue', { title: 'A', body: 'x' }, { ...ctx, sendKey: true });
      expect(
        await lookupTrackerCall('create_issue', { ...ctx, args: { title: 'A', body: 'x' }, byKey: true }),
      ).toMatchObject({ happened: true });
      clock += 60_000;
      // The key is gone from the tracker's memory; the issue it created is not.
      expect(
        await lookupTrackerCall('create_issue', { ...ctx, args: { title: 'A', body: 'x' }, byKey: true }),
      ).toMatchObject({
        happened: true,
        output: expect.stringContaining('"number":1'),
      });
      expect(
        await lookupTrackerCall('create_issue', {
          ...ctx,
          args: { title: 'A', body: 'x' },
          key: 'k-never-sent',
          byKey: true,
        }),
      ).toEqual({
        happened: false,
      });
    } finally {
      await app.close();
    }
  });

  test('keyless mode ignores the header, so a repeat creates a second issue, and refuses key lookups', async () => {
    const { app, store } = tracker({ keyless: true });
    await createIssue(app, { title: 'A', body: 'x' }, 'k1');
    const again = await createIssue(app, { title: 'A', body: 'x' }, 'k1');
    expect(again.headers[REPLAYED_HEADER]).toBeUndefined();
    expect(again.headers[RETENTION_HEADER]).toBeUndefined();
    expect(store.counts('demo').issues).toBe(2);
    const lookup = await app.inject({ method: 'GET', url: '/idempotency/k1' });
    expect(lookup.statusCode).toBe(501);
    expect(lookup.json().error).toBe('keys_not_supported');
  });

  test('a failed request stores no key, so a retry after the cause is fixed goes through', async () => {
    const { app, store } = tracker();
    const url = '/repos/demo/issues/1/comments';
    const headers = { ...json, 'idempotency-key': 'k-comment' };
    expect((await app.inject({ method: 'POST', url, headers, payload: { body: 'hi' } })).statusCode).toBe(404);
    await createIssue(app, { title: 'A', body: 'x' });
    expect((await app.inject({ method: 'POST', url, headers, payload: { body: 'hi' } })).statusCode).toBe(201);
    expect(store.counts('demo').comments).toBe(1);
  });
});

describe('tracker: bad input is a 4xx JSON error, never a 500', () => {
  const long = 'k'.repeat(256);
  const cases: Array<
    [
      string,
      { method: 'GET' | 'POST'; url: string; headers?: Record<string, string>; payload?: string },
      number,
      string,
    ]
  > = [
    [
      'malformed JSON',
      { method: 'POST', url: '/repos/demo/issues', headers: json, payload: '{"title": ' },
      400,
      'malformed_json',
    ],
    [
      'an empty JSON body',
      { method: 'POST', url: '/repos/demo/issues', headers: json, payload: '' },
      400,
      'malformed_json',
    ],
    [
      'a missing title',
      { method: 'POST', url: '/repos/demo/issues', headers: json, payload: '{"body":"x"}' },
      400,
      'invalid_request',
    ],
    [
      'a numeric title',
      { method: 'POST', url: '/repos/demo/issues', headers: json, payload: '{"title":42,"body":"x"}' },
      400,
      'invalid_request',
    ],
    [
      'labels that are not strings',
      { method: 'POST', url: '/repos/demo/issues', headers: json, payload: '{"title":"t","body":"x","labels":[1]}' },
      400,
      'invalid_request',
    ],
    [
      'a body that is an array',
      { method: 'POST', url: '/repos/demo/issues', headers: json, payload: '[1,2]' },
      400,
      'invalid_request',
    ],
    [
      'an oversized body',
      {
        method: 'POST',
        url: '/repos/demo/issues',
        headers: json,
        payload: JSON.stringify({ title: 't', body: 'x'.repeat(2 * 1024 * 1024) }),
      },
      413,
      'body_too_large',
    ],
    [
      'a non-JSON content type',
      { method: 'POST', url: '/repos/demo/issues', headers: { 'content-type': 'text/plain' }, payload: 'hi' },
      415,
      'unsupported_media_type',
    ],
    ['a non-numeric issue number', { method: 'GET', url: '/repos/demo/issues/abc' }, 400, 'invalid_request'],
    [
      'a non-numeric issue number on comment',
      { method: 'POST', url: '/repos/demo/issues/1x/comments', headers: json, payload: '{"body":"x"}' },
      400,
      'invalid_request',
    ],
    [
      'an empty idempotency key',
      {
        method: 'POST',
        url: '/repos/demo/issues',
        headers: { ...json, 'idempotency-key': '' },
        payload: '{"title":"t","body":"x"}',
      },
      400,
      'invalid_idempotency_key',
    ],
    [
      'a key over 255 characters',
      {
        method: 'POST',
        url: '/repos/demo/issues',
        headers: { ...json, 'idempotency-key': long },
        payload: '{"title":"t","body":"x"}',
      },
      400,
      'invalid_idempotency_key',
    ],
    [
      'a key lookup over 255 characters',
      { method: 'GET', url: `/idempotency/${long}` },
      400,
      'invalid_idempotency_key',
    ],
    [
      'a key lookup that is not ASCII',
      { method: 'GET', url: `/idempotency/${encodeURIComponent('clé')}` },
      400,
      'invalid_idempotency_key',
    ],
    [
      'a body nested 10,000 deep (a recursive walk would overflow: 500)',
      {
        method: 'POST',
        url: '/repos/demo/issues',
        headers: { ...json, 'idempotency-key': 'k-deep' },
        payload: `{"title":"t","body":"x","labels":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
      },
      400,
      'too_deep',
    ],
    ['an unknown route', { method: 'GET', url: '/nope' }, 404, 'route_not_found'],
    ['a bad repo name', { method: 'GET', url: '/repos/..%2F/issues' }, 400, 'invalid_request'],
  ];

  test.each(cases)('%s', async (_name, request, status, code) => {
    const { app, store } = tracker();
    const res = await app.inject(request);
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ error: code, message: expect.any(String) });
    expect(store.counts('demo')).toEqual({ issues: 0, comments: 0 });
  });
});

describe('tracker: Idempotency-Key headers as they arrive on the wire', () => {
  /** One raw HTTP/1.1 request, header lines as given (bytes, not what fetch would normalise). */
  async function raw(port: number, headerLines: Buffer[]): Promise<{ status: number; body: string }> {
    const { connect } = await import('node:net');
    const body = '{"title":"t","body":"x"}';
    const head = Buffer.concat([
      Buffer.from(
        `POST /repos/demo/issues HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\nConnection: close\r\n`,
      ),
      ...headerLines.map((l) => Buffer.concat([l, Buffer.from('\r\n')])),
      Buffer.from(`\r\n${body}`),
    ]);
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(head));
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString()));
      socket.on('error', reject);
      socket.on('close', () =>
        resolve({ status: Number(text.split(' ')[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) }),
      );
    });
  }

  test('two Idempotency-Key headers (Node would join them as "a, b"), a key in UTF-8 bytes and one with spaces are refused', async () => {
    const { app, store } = tracker();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as import('node:net').AddressInfo;
    try {
      const twice = await raw(port, [Buffer.from('Idempotency-Key: a'), Buffer.from('idempotency-key: b')]);
      expect(twice.status).toBe(400);
      expect(twice.body).toContain('send one Idempotency-Key header, not several');
      const utf8 = await raw(port, [Buffer.concat([Buffer.from('Idempotency-Key: '), Buffer.from('clé', 'utf8')])]);
      expect(utf8.status).toBe(400);
      expect(utf8.body).toContain('only visible ASCII');
      expect(store.counts('demo')).toEqual({ issues: 0, comments: 0 });
      // A space is no key character: a header's edges would lose one, and the docs say "visible ASCII".
      const spaced = await raw(port, [Buffer.from('Idempotency-Key: a key, with a comma')]);
      expect([spaced.status, spaced.body]).toEqual([400, expect.stringContaining('no spaces')]);
      expect((await raw(port, [Buffer.from('Idempotency-Key: a-key,with-a-comma')])).status).toBe(201);
    } finally {
      await app.close();
    }
  });
});

describe('tracker: a token, when it has one', () => {
  test('every route but /health needs the bearer token; a request without it, or with another, changes nothing', async () => {
    const store = new Store(':memory:');
    const app = buildTracker({ store, token: 's3cret-token' });
    const auth = (token: string) => ({ ...json, authorization: `Bearer ${token}` });
    const payload = { title: 'x', body: 'y' };
    for (const headers of [json, auth('wrong'), { ...json, authorization: 's3cret-token' }]) {
      const res = await app.inject({ method: 'POST', url: '/repos/demo/issues', headers, payload });
      expect([res.statusCode, res.json().error, res.headers['www-authenticate']]).toEqual([
        401,
        'unauthorized',
        'Bearer',
      ]);
    }
    expect((await app.inject({ method: 'GET', url: '/repos/demo/issues' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/idempotency/k' })).statusCode).toBe(401);
    expect(store.counts('demo')).toEqual({ issues: 0, comments: 0 });
    expect((await app.inject({ method: 'GET', url: '/health' })).json()).toMatchObject({ ok: true });
    expect(
      (await app.inject({ method: 'POST', url: '/repos/demo/issues', headers: auth('s3cret-token'), payload }))
        .statusCode,
    ).toBe(201);
    // The tools send it when given it.
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const ctx = { trackerUrl: url, repo: 'demo', key: 'k1', sendKey: true };
    await expect(callTrackerTool('search_issues', { query: '' }, ctx)).rejects.toThrow(
      /tracker refused GET \/repos\/demo\/issues\?q= with 401/,
    );
    expect(
      JSON.parse(
        (await callTrackerTool('search_issues', { query: '' }, { ...ctx, trackerToken: 's3cret-token' })).output,
      ).items,
    ).toHaveLength(1);
    await app.close();
    store.close();
  });

  test('the CLI refuses to listen beyond loopback without a token, and says why', async () => {
    const child = startChild('tracker/server.ts', ['--port', '0', '--db', ':memory:', '--host', '0.0.0.0'], {
      TRACKER_TOKEN: '',
    });
    await child.waitFor(/the tracker refuses to listen on 0\.0\.0\.0 without a token[\s\S]*usage: npm run tracker/);
    await new Promise((r) => child.proc.once('exit', r));
    expect(child.proc.exitCode).toBe(2);
    for (const extra of [['--token', 't'], ['--insecure']]) {
      const served = startChild('tracker/server.ts', [
        '--port',
        '0',
        '--db',
        ':memory:',
        '--host',
        '0.0.0.0',
        ...extra,
      ]);
      await served.waitFor(/tracker listening on/);
      await served.kill('SIGTERM');
    }
  });
});

describe('tracker: durability', () => {
  test('records and keys survive kill -9 of the tracker process and a restart on the same file', async () => {
    const db = path.join(mkdtempSync(path.join(os.tmpdir(), 'tracker-')), 'tracker.db');
    const first = startChild('tracker/server.ts', ['--port', '0', '--db', db]);
    try {
      const [, url] = await first.waitFor(/listening on (http:\/\/\S+)/);
      const res = await fetch(`${url}/repos/demo/issues`, {
        method: 'POST',
        headers: { ...json, 'idempotency-key': 'survivor' },
        body: JSON.stringify({ title: 'persist me', body: 'x' }),
      });
      expect(res.status).toBe(201);
    } finally {
      await first.kill('SIGKILL');
    }
    expect(first.proc.signalCode).toBe('SIGKILL');

    const second = startChild('tracker/server.ts', ['--port', '0', '--db', db]);
    try {
      const [, url] = await second.waitFor(/listening on (http:\/\/\S+)/);
      const list = (await (await fetch(`${url}/repos/demo/issues`)).json()) as { items: Array<{ title: string }> };
      expect(list.items.map((i) => i.title)).toEqual(['persist me']);
      const replay = await fetch(`${url}/repos/demo/issues`, {
        method: 'POST',
        headers: { ...json, 'idempotency-key': 'survivor' },
        body: JSON.stringify({ title: 'persist me', body: 'x' }),
      });
      expect(replay.headers.get(REPLAYED_HEADER)).toBe('true');
      const after = (await (await fetch(`${url}/repos/demo/issues`)).json()) as { items: unknown[] };
      expect(after.items).toHaveLength(1);
    } finally {
      await second.kill('SIGTERM');
    }
  });

  test('the CLI rejects a bad command line with the usage line', async () => {
    const child = startChild('tracker/server.ts', ['--port', 'eighty', '--db', 'x.db']);
    await child.waitFor(/bad port "eighty"[\s\S]*usage: npm run tracker/);
    await new Promise((r) => child.proc.once('exit', r));
    expect(child.proc.exitCode).toBe(2);
  });
});

describe('the tracker client', () => {
  test('the tracker client, its tools and the MCP server load without any Temporal module', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const script =
      "for (const m of ['./tracker/client', './tracker/tools', './mcp/tracker-server']) require(m); " +
      "console.log(JSON.stringify(Object.keys(require.cache).filter((k) => k.includes('@temporalio'))))";
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual([]);
  }, 30_000);

  test('a refused connection is "not sent": a first attempt is refused (nothing happened), a retry stays unknown', async () => {
    const { asActivityError } = await import('../activities/errors');
    // A port nothing listens on: take one, then free it.
    const { app } = tracker();
    const closed = await app.listen({ port: 0, host: '127.0.0.1' });
    await app.close();
    const err = await callTrackerTool(
      'create_issue',
      { title: 'A', body: 'x' },
      { trackerUrl: closed, repo: 'demo', key: 'k', sendKey: true },
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ReceiverUnavailableError', notSent: true });
    const first = asActivityError(err, false) as ApplicationFailure;
    expect([first.nonRetryable, first.type]).toEqual([true, 'ReceiverUnreachable']);
    expect(asActivityError(err, true)).toBe(err); // an earlier attempt may have acted
    const bad = await callTrackerTool(
      'create_issue',
      { title: '' },
      { trackerUrl: closed, repo: 'demo', key: 'k', sendKey: true },
    ).catch((e: unknown) => e);
    expect(asActivityError(bad, true)).toMatchObject({ nonRetryable: true, type: 'InvalidArguments' });
  });
});

describe('tracker: a receiver slower than its callers', () => {
  const issue = { title: 'Slow', body: 'held before it commits' };

  test('a second request with a key still in flight is answered 409, acts on nothing, and the first one commits once', async () => {
    const store = new Store(':memory:');
    const app = buildTracker({ store, slow: new SlowCommits(60_000) });
    const first = createIssue(app, issue, 'k-slow'); // held until another request of the repo is answered
    await new Promise((r) => setTimeout(r, 20));
    expect((await app.inject({ method: 'GET', url: '/idempotency/k-slow' })).statusCode).toBe(409);
    const second = await createIssue(app, issue, 'k-slow');
    expect(second.statusCode).toBe(409);
    expect(second.json().error).toBe('request_in_flight');
    expect(second.headers['retry-after']).toBe('1');
    expect((await first).statusCode).toBe(201); // released by the 409's answer
    const third = await createIssue(app, issue, 'k-slow');
    expect(third.headers[REPLAYED_HEADER]).toBe('true');
    expect(third.json()).toEqual((await first).json());
    expect(store.counts('demo')).toEqual({ issues: 1, comments: 0 });
  });

  test('without claims (the race the sweep shows), the second request acts and so does the first: two issues', async () => {
    const store = new Store(':memory:');
    const app = buildTracker({ store, slow: new SlowCommits(60_000), claimKeys: false });
    const first = createIssue(app, issue, 'k-race');
    await new Promise((r) => setTimeout(r, 20));
    expect((await createIssue(app, issue, 'k-race')).statusCode).toBe(201);
    expect((await first).statusCode).toBe(201);
    expect(store.counts('demo')).toEqual({ issues: 2, comments: 0 });
  });

  test("a keyless tracker that states its commit deadline says so in a lookup's answer; the held request is found after", async () => {
    const store = new Store(':memory:');
    const app = buildTracker({
      store,
      keyless: true,
      slow: new SlowCommits(60_000),
      stateCommitDeadline: true,
      commitDeadlineMs: 7_000,
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const ctx = { trackerUrl: url, repo: 'demo', key: 'run-1/call-1' };
      const first = callTrackerTool('create_issue', issue, { ...ctx, sendKey: false });
      await new Promise((r) => setTimeout(r, 50));
      // The search is answered before the held request commits: not found, but not final.
      expect(await lookupTrackerCall('create_issue', { ...ctx, args: issue, byKey: false })).toEqual({
        happened: false,
        commitDeadlineMs: 7_000,
      });
      await first;
      expect(await lookupTrackerCall('create_issue', { ...ctx, args: issue, byKey: false })).toMatchObject({
        happened: true,
      });
    } finally {
      await app.close();
    }
  });

  test('the hold ends when the caller comes back, however late; only a hold that reaches its cap is marked as run out', async () => {
    const hold = new SlowCommits(300);
    let released = false;
    const first = hold.beforeCommit('late').then(() => (released = true));
    // Half the cap gone: still held, for only a request or the cap ends it.
    await new Promise((r) => setTimeout(r, 150));
    expect(released).toBe(false);
    hold.answered('late');
    await first;
    expect(hold.ranOut('late')).toBe(false);
    await hold.beforeCommit('late'); // the repo's later writes are not held
    await hold.beforeCommit('never'); // nobody comes back for this one: the cap ends it
    expect(hold.ranOut('never')).toBe(true);
    expect(hold.ranOut('late')).toBe(false);
  });

  test('a request held past the commit deadline is answered 503, nothing of it is kept, and its key is free again', async () => {
    let clock = 1_000_000;
    const store = new Store(':memory:');
    const hold = { beforeCommit: async () => void (clock += 8_000), answered: () => {} };
    const app = buildTracker({ store, slow: hold, commitDeadlineMs: 7_000, now: () => clock });
    const late = await createIssue(app, issue, 'k-late');
    expect(late.statusCode).toBe(503);
    expect(late.json().error).toBe('commit_deadline_passed');
    expect(store.counts('demo')).toEqual({ issues: 0, comments: 0 });
    expect(store.getClaim('k-late')).toBeNull();
    expect((await app.inject({ method: 'GET', url: '/idempotency/k-late' })).statusCode).toBe(404);
  });

  test('a claim lapses with the commit deadline, and at once when the process that made it is gone', async () => {
    let clock = 1_000_000;
    const store = new Store(':memory:');
    const never = { beforeCommit: () => new Promise<void>(() => {}), answered: () => {} };
    const first = buildTracker({ store, slow: never, commitDeadlineMs: 7_000, now: () => clock });
    void createIssue(first, issue, 'k-old'); // claimed, then held for good: its process "dies" before it commits
    for (let i = 0; i < 100 && !store.getClaim('k-old'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(store.getClaim('k-old')).not.toBeNull();
    expect((await first.inject({ method: 'GET', url: '/idempotency/k-old' })).statusCode).toBe(409);
    clock += 7_001;
    expect((await first.inject({ method: 'GET', url: '/idempotency/k-old' })).statusCode).toBe(404);
    // A tracker restarted on the same database (the first one was killed mid-request) takes the claim over at once.
    clock -= 7_001;
    const restarted = buildTracker({ store, commitDeadlineMs: 7_000, now: () => clock });
    expect((await createIssue(restarted, issue, 'k-old')).statusCode).toBe(201);
    expect(store.counts('demo')).toEqual({ issues: 1, comments: 0 });
  });
});

describe("a receiver's record only when it matches: what holds a call's key or trace must be the call", () => {
  const issue = { title: 'Checkout fails', body: 'with a coupon' };

  test('a key first used for another request is a 422 that shows that request; the client names it KeyConflict', async () => {
    const { app } = tracker();
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      // A squatter who learned the key files something else under it first.
      await createIssue(app, { title: 'squatted', body: 'not the call' }, 'k-squat');
      const refused = await createIssue(app, issue, 'k-squat');
      expect(refused.statusCode).toBe(422);
      expect(refused.json().first).toEqual({
        method: 'POST',
        path: '/repos/demo/issues',
        body: { title: 'squatted', body: 'not the call' },
      });
      const call = callTrackerTool('create_issue', issue, {
        trackerUrl: url,
        repo: 'demo',
        key: 'k-squat',
        sendKey: true,
      });
      await expect(call).rejects.toMatchObject({ type: 'KeyConflict', message: expect.stringContaining('"squatted"') });
    } finally {
      await app.close();
    }
  });

  test("a lookup by key says happened only for the call's own request; another is a mismatch", async () => {
    const { app } = tracker();
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const ctx = { trackerUrl: url, repo: 'demo', byKey: true };
      await callTrackerTool('create_issue', issue, { trackerUrl: url, repo: 'demo', key: 'k-own', sendKey: true });
      expect(await lookupTrackerCall('create_issue', { ...ctx, key: 'k-own', args: issue })).toMatchObject({
        happened: true,
      });
      await createIssue(app, { title: 'squatted', body: 'x' }, 'k-other');
      const found = await lookupTrackerCall('create_issue', { ...ctx, key: 'k-other', args: issue });
      expect(found).toEqual({ happened: false, mismatch: expect.stringContaining('"squatted"') });
    } finally {
      await app.close();
    }
  });

  test("on a keyless tracker a planted trace line is not the call: its fields must be the call's", async () => {
    const { app, store } = tracker({ keyless: true });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const ctx = { trackerUrl: url, repo: 'demo', byKey: false };
      // Anyone who can file an issue can write the trace line of a key they read in a history.
      await createIssue(app, { title: 'planted', body: 'click here\n\n<!-- idempotency-key: k-planted -->' });
      const planted = await lookupTrackerCall('create_issue', { ...ctx, key: 'k-planted', args: issue });
      expect(planted).toEqual({ happened: false, mismatch: expect.stringContaining('"planted"') });
      await callTrackerTool('create_issue', issue, { trackerUrl: url, repo: 'demo', key: 'k-real', sendKey: false });
      expect(await lookupTrackerCall('create_issue', { ...ctx, key: 'k-real', args: issue })).toMatchObject({
        happened: true,
        output: expect.stringContaining('"Checkout fails"'),
      });
      expect(store.counts('demo').issues).toBe(2);
    } finally {
      await app.close();
    }
  });

  test('keys are scoped per token: one account can neither use nor read the keys of another', async () => {
    const store = new Store(':memory:');
    const app = buildTracker({ store, token: ['token-alice', 'token-mallory'] });
    const as = (token: string) => ({ ...json, authorization: `Bearer ${token}`, 'idempotency-key': 'k-shared' });
    const post = (token: string, title: string) =>
      app.inject({ method: 'POST', url: '/repos/demo/issues', headers: as(token), payload: { title, body: 'x' } });
    // Mallory uses the key first; Alice's request under it is hers alone, not a 422 and not Mallory's replay.
    expect((await post('token-mallory', 'squatted')).statusCode).toBe(201);
    const alice = await post('token-alice', 'real');
    expect([alice.statusCode, alice.headers[REPLAYED_HEADER]]).toEqual([201, undefined]);
    expect(alice.json().title).toBe('real');
    const read = (token: string) =>
      app.inject({ method: 'GET', url: '/idempotency/k-shared', headers: { authorization: `Bearer ${token}` } });
    expect((await read('token-alice')).json().body.title).toBe('real');
    expect((await read('token-mallory')).json().body.title).toBe('squatted');
    expect((await read('nobody')).statusCode).toBe(401);
    await app.close();
  });
});
