// `npm run mcp`: the tracker's tools as an MCP server, over stdio or Streamable HTTP.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { checkExposure } from '../common/access';
import { closeOnSignal, parseCommandLine, parsePort, runMain, UsageError } from '../common/cli';
import { guardRequest, networkFlags, networkPolicyOf, NETWORK_USAGE } from '../common/http-guard';
import { buildTrackerMcpServer, trackerHonoursKeys } from './tracker-server';
import { trackerFromEnv } from '../tracker/config';

const USAGE = `npm run mcp -- [--port P ${NETWORK_USAGE} [--token T] [--insecure]] [--tracker URL] [--repo NAME]`;

/** The largest request body the HTTP endpoint reads; a larger one is refused with 413 before it is parsed. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * `npm run mcp`: the tracker's tools over MCP. Without `--port` it speaks over stdio (for clients that
 * start it as a subprocess); with `--port`, Streamable HTTP at `/mcp`, stateless: each request gets a
 * server of its own, so a restart loses nothing. Over HTTP it answers only to loopback names and
 * origins unless told more (DNS-rebinding protection), requires a bearer token when given one
 * (`--token`, `MCP_TOKEN`), and refuses to listen beyond loopback without one.
 */
async function main(): Promise<void> {
  const { values } = parseCommandLine(
    process.argv.slice(2),
    {
      port: { type: 'string' },
      ...networkFlags(),
      tracker: { type: 'string' },
      repo: { type: 'string' },
      token: { type: 'string' },
      insecure: { type: 'boolean', default: false },
    },
    USAGE,
  );
  const tracker = trackerFromEnv();
  const trackerUrl = values.tracker ?? tracker.trackerUrl;
  // Advertise keyed writes only if the tracker behind us keeps keys: a client trusts what we say.
  const { keyed, why } = await trackerHonoursKeys(trackerUrl);
  if (why) process.stderr.write(`tracker at ${trackerUrl}: writes advertised as unkeyed, because ${why}\n`);
  const options = { trackerUrl, trackerToken: tracker.trackerToken, repo: values.repo, keyed };
  if (values.port === undefined) {
    await buildTrackerMcpServer(options).connect(new StdioServerTransport());
    return;
  }
  const port = parsePort(values.port, USAGE);
  const token = values.token ?? (process.env.MCP_TOKEN || undefined);
  const { bind, hosts } = networkPolicyOf(values);
  const exposed = checkExposure('the MCP server', bind, token, values.insecure!);
  if (exposed) throw new UsageError(exposed, USAGE);
  const policy = { ...hosts, token };
  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

  const httpServer = http.createServer((req, res) => {
    // Refused before anything is read or run: a rebinding page or a caller without the token changes nothing.
    const refusal = guardRequest(req.headers, policy);
    if (refusal) {
      process.stderr.write(`refused ${req.method} ${req.url} from ${req.socket.remoteAddress}: ${refusal.message}\n`);
      json(
        res,
        refusal.status,
        { jsonrpc: '2.0', error: { code: -32000, message: refusal.message }, id: null },
        refusal.status === 401 ? { 'www-authenticate': 'Bearer' } : {},
      );
      return;
    }
    if ((req.url ?? '').split('?')[0] !== '/mcp') {
      json(res, 404, { error: 'not_found', message: 'MCP is served at /mcp' });
      return;
    }
    const server = buildTrackerMcpServer(options);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      maxRequestBodySize: MAX_BODY_BYTES,
    });
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
  await new Promise<void>((resolve) => httpServer.listen(port, bind, resolve));
  const { port: listening } = httpServer.address() as AddressInfo;
  console.log(
    `MCP server listening on http://${bind}:${listening}/mcp (tracker ${trackerUrl}${token ? ', token required' : ''})`,
  );
  // Requests in flight get a moment to finish; a client's open stream would otherwise hold the exit forever.
  closeOnSignal(
    () =>
      new Promise((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeIdleConnections();
        setTimeout(() => httpServer.closeAllConnections(), 2_000).unref();
      }),
  );
}

runMain(main);
