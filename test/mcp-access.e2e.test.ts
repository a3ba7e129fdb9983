// Who may make the MCP server act, over HTTP, with real processes: a web page after DNS rebinding, a
// caller without the token, and junk; and the tracker's token, which the MCP server sends for its callers.
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startChild, type Child } from './helpers/processes';
import { listeningTracker } from './helpers/tracker';

const TRACKER_TOKEN = 'tracker-token-for-tests';
const MCP_TOKEN = 'mcp-token-for-tests';
let tracker: Awaited<ReturnType<typeof listeningTracker>>;
const servers: Child[] = [];

beforeAll(async () => {
  tracker = await listeningTracker({ token: TRACKER_TOKEN });
}, 30_000);

afterAll(async () => {
  for (const s of servers) await s.kill('SIGTERM');
  await tracker?.close();
});

/** Starts `npm run mcp` over HTTP with these flags and environment; returns its `/mcp` URL. */
async function mcpServer(args: string[], env: NodeJS.ProcessEnv = {}): Promise<URL> {
  const child = startChild('mcp/server.ts', ['--port', '0', '--tracker', tracker.url, ...args], {
    TRACKER_TOKEN,
    ...env,
  });
  servers.push(child);
  const [, url] = await child.waitFor(/listening on (http:\/\/\S+\/mcp)/);
  return new URL(url);
}

/** One raw HTTP POST, with whatever headers a caller (or an attacker) chooses, `Host` included. */
function post(url: URL, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const createIssue = (title: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'create_issue', arguments: { repo: 'access', title, body: 'b' } },
  });

/** An SDK client over HTTP with these extra headers. */
async function connect(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

describe('MCP server over HTTP: DNS rebinding', () => {
  test('a request with a foreign Host and Origin (a page after DNS rebinding) is refused with 403 and files nothing', async () => {
    const url = await mcpServer([]);
    const attack = await post(url, createIssue('rebound'), { host: 'evil.example', origin: 'http://evil.example' });
    expect(attack.status).toBe(403);
    expect(JSON.parse(attack.body).error.message).toMatch(/^Host "evil.example" is not one this server answers to/);
    // The name resolves to us, but the page's origin is still foreign.
    const originOnly = await post(url, createIssue('rebound'), { origin: 'http://evil.example' });
    expect(originOnly.status).toBe(403);
    expect(JSON.parse(originOnly.body).error.message).toMatch(
      /^Origin "http:\/\/evil.example" may not call this server/,
    );
    expect(tracker.store.counts('access')).toEqual({ issues: 0, comments: 0 });

    // A page on a loopback origin (a local inspector) and a client with no Origin are served.
    const client = await connect(url, { origin: 'http://localhost:6274' });
    const made = await client.callTool({
      name: 'create_issue',
      arguments: { title: 'local', body: 'b', repo: 'access' },
    });
    expect(made.isError).toBeFalsy();
    await client.close();
    expect(tracker.store.counts('access')).toEqual({ issues: 1, comments: 0 });
  }, 60_000);

  test('--allow-host and --allow-origin add names and origins, and nothing else', async () => {
    const url = await mcpServer(['--allow-host', 'agent.internal', '--allow-origin', 'https://console.example']);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(
      (await post(url, list, { host: `agent.internal:${url.port}`, origin: 'https://console.example' })).status,
    ).toBe(200);
    expect((await post(url, list, { host: `other.internal:${url.port}` })).status).toBe(403);
    expect((await post(url, list, { origin: 'https://console.example.evil' })).status).toBe(403);
  }, 60_000);
});

describe('MCP server over HTTP: tokens', () => {
  test('with --token, a caller without it gets 401 and changes nothing; with it, the call reaches the tracker, which needs its own token', async () => {
    const url = await mcpServer(['--token', MCP_TOKEN]);
    const refused = await post(url, createIssue('no token'));
    expect(refused.status).toBe(401);
    expect((await post(url, createIssue('wrong token'), { authorization: 'Bearer nope' })).status).toBe(401);
    await expect(connect(url)).rejects.toThrow();
    expect(tracker.store.counts('access-token')).toEqual({ issues: 0, comments: 0 });

    const client = await connect(url, { authorization: `Bearer ${MCP_TOKEN}` });
    const made = await client.callTool({
      name: 'create_issue',
      arguments: { title: 'with token', body: 'b', repo: 'access-token' },
    });
    expect(made.isError).toBeFalsy();
    await client.close();
    expect(tracker.store.counts('access-token')).toEqual({ issues: 1, comments: 0 });
  }, 60_000);

  test("an MCP server with the wrong tracker token gets the tracker's refusal as a tool error, and the tracker files nothing", async () => {
    const url = await mcpServer([], { TRACKER_TOKEN: 'not-the-token' });
    const client = await connect(url);
    const res = (await client.callTool({
      name: 'create_issue',
      arguments: { title: 't', body: 'b', repo: 'access-wrong' },
    })) as { isError?: boolean; content: Array<{ text: string }> };
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toMatch(/401/);
    await client.close();
    expect(tracker.store.counts('access-wrong')).toEqual({ issues: 0, comments: 0 });
  }, 60_000);

  test('it refuses to listen beyond loopback without a token, unless told --insecure', async () => {
    const child = startChild('mcp/server.ts', ['--port', '0', '--tracker', tracker.url, '--host', '0.0.0.0']);
    await child.waitFor(/the MCP server refuses to listen on 0\.0\.0\.0 without a token/);
    await new Promise((r) => child.proc.once('exit', r));
    expect(child.proc.exitCode).toBe(2);
    await mcpServer(['--host', '0.0.0.0', '--insecure']);
  }, 60_000);
});

describe('MCP server over HTTP: bad input', () => {
  test('an oversized body, invalid JSON, an unknown method and a batch of junk each get an error, and the server goes on serving', async () => {
    const url = await mcpServer([]);
    const huge = await post(
      url,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(2 * 1024 * 1024) } }),
    );
    expect(huge.status).toBe(413);
    const notJson = await post(url, '{"jsonrpc": "2.0", ');
    expect(notJson.status).toBe(400);
    expect(JSON.parse(notJson.body).error.code).toBe(-32700);
    const unknown = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/destroy' }));
    expect(
      JSON.parse(
        unknown.body
          .replace(/^(event|data): ?/gm, '')
          .trim()
          .split('\n')
          .pop()!,
      ).error.code,
    ).toBe(-32601);
    const junk = await post(url, JSON.stringify([1, 'two', { three: 3 }]));
    expect(junk.status).toBeGreaterThanOrEqual(400);
    expect(junk.status).toBeLessThan(500);

    const client = await connect(url);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('create_issue');
    await client.close();
  }, 60_000);
});
