// The worker's MCP configuration file: servers, ${VAR}, and what the ladder learns from each tool's annotations.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { specFromMcpTool } from '../activities/mcp-toolbox';
import { loadMcpConfig, McpConfigError, parseMcpConfig } from '../activities/mcp-config';

describe('MCP configuration in the shape other MCP clients use', () => {
  test('stdio and HTTP servers are read; a relative cwd is resolved against the file, `type` is accepted', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-config-'));
    const file = path.join(dir, 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          local: { command: 'node', args: ['server.js'], env: { TOKEN: 'x' }, cwd: 'servers' },
          remote: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t' } },
        },
      }),
    );
    expect(loadMcpConfig(file).mcpServers).toEqual({
      local: { command: 'node', args: ['server.js'], env: { TOKEN: 'x' }, cwd: path.join(dir, 'servers') },
      remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t' } },
    });
  });

  test.each([
    ['not JSON', '{', /x\.json: not JSON/],
    ['no mcpServers', '{}', /mcpServers: Required/],
    ['neither command nor url', '{"mcpServers":{"a":{}}}', /mcpServers\.a needs a command \(stdio\) or a url/],
    ['both', '{"mcpServers":{"a":{"command":"x","url":"http://h/mcp"}}}', /mcpServers\.a has both command and url/],
    ['a bad url', '{"mcpServers":{"a":{"url":"not a url"}}}', /mcpServers\.a\.url: Invalid url/],
    ['args not strings', '{"mcpServers":{"a":{"command":"x","args":[1]}}}', /mcpServers\.a\.args\.0: Expected string/],
    [
      'an unknown field',
      '{"mcpServers":{"a":{"command":"x","argv":[]}}}',
      /mcpServers\.a\.argv is not a field of an MCP server \(did you mean args\?\)/,
    ],
    ['SSE', '{"mcpServers":{"a":{"type":"sse","url":"http://h/sse"}}}', /SSE transport is not supported/],
    ['a bad server name', '{"mcpServers":{"a b":{"command":"x"}}}', /server name may hold letters/],
    [
      'receiverDownMs not a number of ms',
      '{"mcpServers":{"a":{"url":"http://h/mcp","receiverDownMs":"3m"}}}',
      /mcpServers\.a\.receiverDownMs: Expected number/,
    ],
  ])('%s is refused with a message naming the place', (_name, text, message) => {
    expect(() => parseMcpConfig(text, 'x.json')).toThrow(McpConfigError);
    expect(() => parseMcpConfig(text, 'x.json')).toThrow(message);
  });

  test('${VAR} in env, headers, args and url comes from the environment, so no secret lives in the file; an unset one is an error naming the field', () => {
    const text = JSON.stringify({
      mcpServers: {
        local: { command: 'node', args: ['--db=${DB}'], env: { TOKEN: '${MCP_SECRET}', PLAIN: 'a$b' } },
        remote: { url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${MCP_SECRET}' } },
      },
    });
    const env = { MCP_SECRET: 'canary-123', DB: '/data/x.db', HOST: 'mcp.example.com' };
    expect(parseMcpConfig(text, 'x.json', '/', env).mcpServers).toEqual({
      local: { command: 'node', args: ['--db=/data/x.db'], env: { TOKEN: 'canary-123', PLAIN: 'a$b' } },
      remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer canary-123' } },
    });
    expect(() => parseMcpConfig(text, 'x.json', '/', { DB: 'x', HOST: 'h' })).toThrow(
      'x.json: mcpServers.local.env.TOKEN: ${MCP_SECRET} is not set in the environment',
    );
  });

  test('receiverDownMs, how long a call waits out a server that refuses connections, is read for either transport', () => {
    const text = JSON.stringify({
      mcpServers: { a: { url: 'http://h/mcp', receiverDownMs: 300_000 }, b: { command: 'x', receiverDownMs: 5_000 } },
    });
    expect(parseMcpConfig(text, 'x.json').mcpServers).toEqual({
      a: { url: 'http://h/mcp', receiverDownMs: 300_000 },
      b: { command: 'x', receiverDownMs: 5_000 },
    });
  });

  test('a missing file is an error naming it', () => {
    expect(() => loadMcpConfig('/nonexistent/mcp.json')).toThrow(/\/nonexistent\/mcp\.json: cannot read it: ENOENT/);
  });
});

describe('what the resolution ladder learns from an MCP tool definition', () => {
  const schema = { type: 'object' as const, properties: { title: { type: 'string' } }, required: ['title'] };

  test('no annotations: effectful, unkeyed, no lookup', () => {
    expect(specFromMcpTool('s', { name: 'send_mail', inputSchema: schema })).toMatchObject({
      readOnly: false,
      idempotent: false,
      sendsKey: false,
      lookup: false,
      server: 's',
    });
  });

  test('readOnlyHint and idempotentHint make a repeat harmless; the idempotency _meta names keys and the lookup tool', () => {
    expect(
      specFromMcpTool('s', { name: 'read', inputSchema: schema, annotations: { readOnlyHint: true } }),
    ).toMatchObject({ readOnly: true });
    expect(
      specFromMcpTool('s', { name: 'put', inputSchema: schema, annotations: { idempotentHint: true } }),
    ).toMatchObject({ idempotent: true });
    const keyed = specFromMcpTool('s', {
      name: 'create',
      inputSchema: schema,
      _meta: { idempotency: { keyed: true, lookup: 'lookup_call' } },
    });
    expect(keyed).toMatchObject({ sendsKey: true, lookup: true, lookupTool: 'lookup_call', readOnly: false });
  });

  test("an argument named as a key of the run's context is filled in by the run and hidden from the model", () => {
    const tool = {
      name: 'create_issue',
      inputSchema: {
        type: 'object' as const,
        properties: { title: { type: 'string' }, repo: { type: 'string' } },
        required: ['title', 'repo'],
      },
    };
    const spec = specFromMcpTool('s', tool, ['repo', 'customer']);
    expect(spec.contextArgs).toEqual(['repo']);
    expect(spec.parameters).toEqual({ type: 'object', properties: { title: { type: 'string' } }, required: ['title'] });
    // Without such a key in the context the model sees, and sets, every argument.
    const open = specFromMcpTool('s', tool);
    expect(open.contextArgs).toBeUndefined();
    expect(open.parameters).toEqual(tool.inputSchema);
  });
});
