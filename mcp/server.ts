import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { closeOnSignal, parseCommandLine, parsePort, runMain } from '../common/cli';
import { configFromEnv } from '../common/config';
import { buildTrackerMcpServer, trackerHonoursKeys } from './tracker-server';

const USAGE = 'npm run mcp -- [--port P [--host H]] [--tracker URL] [--repo NAME]';

/**
 * `npm run mcp`: the tracker's tools over MCP. Without `--port` it speaks over stdio (for clients that
 * start it as a subprocess); with `--port`, Streamable HTTP at `/mcp`, stateless: each request gets a
 * server of its own, so a restart loses nothing.
 */
async function main(): Promise<void> {
  const { values } = parseCommandLine(
    process.argv.slice(2),
    {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      tracker: { type: 'string' },
      repo: { type: 'string' },
    },
    USAGE,
  );
  const trackerUrl = values.tracker ?? configFromEnv().trackerUrl;
  // Advertise keyed writes only if the tracker behind us keeps keys: a client trusts what we say.
  const { keyed, why } = await trackerHonoursKeys(trackerUrl);
  if (why) process.stderr.write(`tracker at ${trackerUrl}: writes advertised as unkeyed, because ${why}\n`);
  const options = { trackerUrl, repo: values.repo, keyed };
  if (values.port === undefined) {
    await buildTrackerMcpServer(options).connect(new StdioServerTransport());
    return;
  }
  const port = parsePort(values.port, USAGE);
  const httpServer = http.createServer((req, res) => {
    if ((req.url ?? '').split('?')[0] !== '/mcp') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not_found', message: 'MCP is served at /mcp' }));
      return;
    }
    const server = buildTrackerMcpServer(options);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch((err: Error) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'internal', message: err.message }));
      });
  });
  await new Promise<void>((resolve) => httpServer.listen(port, values.host, resolve));
  const { port: bound } = httpServer.address() as AddressInfo;
  console.log(`MCP server listening on http://${values.host}:${bound}/mcp (tracker ${trackerUrl})`);
  closeOnSignal(() => new Promise((resolve) => httpServer.close(() => resolve())));
}

runMain(main);
