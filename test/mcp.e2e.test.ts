// The tracker's MCP server: its tools, their keys in `_meta`, and its lookup tool.
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { KEY_META } from '../mcp/tracker-server';
import { buildTracker } from '../tracker/app';
import { Store } from '../tracker/store';
import { ROOT, startChild, type Child } from './helpers/processes';

let tracker: FastifyInstance;
let store: Store;
let trackerUrl: string;
let httpServer: Child;
let mcpUrl: string;

beforeAll(async () => {
  store = new Store(':memory:');
  tracker = buildTracker({ store });
  await tracker.listen({ port: 0, host: '127.0.0.1' });
  trackerUrl = `http://127.0.0.1:${(tracker.server.address() as AddressInfo).port}`;
  httpServer = startChild('mcp/server.ts', ['--port', '0', '--tracker', trackerUrl]);
  [, mcpUrl] = await httpServer.waitFor(/listening on (http:\/\/\S+\/mcp)/);
}, 60_000);

afterAll(async () => {
  await httpServer?.kill('SIGTERM');
  await tracker?.close();
  store?.close();
});

const transports = {
  stdio: () =>
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', path.join(ROOT, 'mcp', 'server.ts'), '--tracker', trackerUrl],
      cwd: ROOT,
    }),
  http: () => new StreamableHTTPClientTransport(new URL(mcpUrl)),
};

describe.each(Object.keys(transports) as Array<keyof typeof transports>)('MCP tracker server over %s', (kind) => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'test', version: '0.0.0' });
    await client.connect(transports[kind]());
  }, 60_000);
  afterAll(() => client?.close());

  test('lists the three tools and the lookup tool, with annotations that say which are safe to repeat', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(Object.keys(byName).sort()).toEqual(['comment_on_issue', 'create_issue', 'lookup_call', 'search_issues']);
    expect(byName.create_issue).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    expect(byName.search_issues).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(byName.lookup_call).toMatchObject({ readOnlyHint: true });
    // The writes say the server honours keys and which tool answers "did it happen?".
    const create = tools.find((t) => t.name === 'create_issue')!;
    expect(create._meta).toEqual({ idempotency: { keyed: true, lookup: 'lookup_call' } });
  });

  test('the key in _meta reaches the tracker as Idempotency-Key: a repeat creates nothing new', async () => {
    const repo = `mcp-${kind}`;
    const call = () =>
      client.callTool({
        name: 'create_issue',
        arguments: { title: 'Coupon bug', body: 'x', repo },
        _meta: { [KEY_META]: `key-${kind}` },
      });
    const first = await call();
    const again = await call();
    expect(first.isError).toBeFalsy();
    expect(again.content).toEqual(first.content);
    expect(again._meta).toMatchObject({ replayed: true });
    // And how long the tracker keeps the key, as its Idempotency-Key-Retention-Seconds said.
    expect(first._meta).toMatchObject({ replayed: false, 'idempotency-key-retention-seconds': 86_400 });
    expect(store.counts(repo).issues).toBe(1);
    const lookup = await fetch(`${trackerUrl}/idempotency/key-${kind}`);
    expect(lookup.status).toBe(200);
  });

  test.each([12345, '', true, ['a'], 'clé'])(
    'a key in _meta that is no key (%j) is refused, and nothing is filed',
    async (bad) => {
      const repo = `mcp-badkey-${kind}`;
      const res = await client.callTool({
        name: 'create_issue',
        arguments: { title: 'Coupon bug', body: 'x', repo },
        _meta: { [KEY_META]: bad },
      });
      expect(res.isError).toBe(true);
      expect(JSON.stringify(res.content)).toContain(`invalid params: _meta[\\"${KEY_META}\\"]`);
      expect(res._meta).toMatchObject({ outcome: 'none' });
      expect(store.counts(repo).issues).toBe(0);
    },
  );

  test('a refusal from the tracker is a tool error the model can read, not a crash', async () => {
    const res = await client.callTool({
      name: 'comment_on_issue',
      arguments: { number: 999, body: 'hi', repo: `mcp-${kind}` },
    });
    expect(res.isError).toBe(true);
    expect(JSON.stringify(res.content)).toMatch(/404: no issue 999/);
  });

  test('invalid arguments are a tool error naming the argument, and nothing is created', async () => {
    const repo = `mcp-bad-${kind}`;
    const res = await client
      .callTool({ name: 'create_issue', arguments: { title: 42, body: 'x', repo } })
      .catch((err: Error) => ({
        isError: true,
        content: [{ type: 'text', text: err.message }],
      }));
    expect(res.isError).toBe(true);
    expect(JSON.stringify(res.content)).toMatch(/title/);
    expect(store.counts(repo).issues).toBe(0);
  });
});

describe('what the server advertises is what its tracker does', () => {
  const writesMeta = async (tracker: string) => {
    const client = new Client({ name: 'test', version: '0.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', path.join(ROOT, 'mcp', 'server.ts'), '--tracker', tracker],
      cwd: ROOT,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d) => (stderr += String(d)));
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      return { meta: tools.find((t) => t.name === 'create_issue')!._meta, stderr };
    } finally {
      await client.close();
    }
  };

  test('in front of a keyless tracker the writes are advertised as unkeyed, so a client never repeats them blindly', async () => {
    const keylessStore = new Store(':memory:');
    const keyless = buildTracker({ store: keylessStore, keyless: true });
    await keyless.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { meta } = await writesMeta(`http://127.0.0.1:${(keyless.server.address() as AddressInfo).port}`);
      expect(meta).toEqual({ idempotency: { keyed: false, lookup: 'lookup_call' } });
    } finally {
      await keyless.close();
      keylessStore.close();
    }
  }, 60_000);

  test('a tracker it cannot reach counts as keyless, and the server says why on stderr', async () => {
    const { meta, stderr } = await writesMeta('http://127.0.0.1:9');
    expect(meta).toEqual({ idempotency: { keyed: false, lookup: 'lookup_call' } });
    expect(stderr).toMatch(/writes advertised as unkeyed, because it cannot be reached/);
  }, 60_000);
});
