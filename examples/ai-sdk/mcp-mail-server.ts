// The MCP shape's tool server: an MCP server over Streamable HTTP whose `sendEmail` tool posts to the
// mail service, as a team's own MCP server in front of a service would (it sends no key: MCP's
// `tools/call` carries none).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** A running MCP server: its URL (`.../mcp`). */
export interface McpMailServer {
  url: string;
  close(): Promise<void>;
}

function mailServer(mailUrl: string): McpServer {
  const server = new McpServer({ name: 'mail', version: '1.0.0' });
  const register = server.registerTool.bind(server) as unknown as (
    name: string,
    config: { description: string; inputSchema: Record<string, z.ZodTypeAny> },
    run: (args: { to: string; subject: string; body: string; run: string }) => Promise<{
      content: Array<{ type: 'text'; text: string }>;
    }>,
  ) => void;
  register(
    'sendEmail',
    {
      description: 'Send a mail',
      inputSchema: { to: z.string(), subject: z.string(), body: z.string(), run: z.string() },
    },
    async ({ to, subject, body, run }) => {
      const res = await fetch(`${mailUrl}/mails`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to, subject, body, run }),
      });
      if (!res.ok) throw new Error(`mail service: ${res.status}`);
      const { id } = (await res.json()) as { id: string };
      return { content: [{ type: 'text', text: `sent ${id}` }] };
    },
  );
  return server;
}

/** Starts the MCP server in front of the mail service at `mailUrl` (stateless: one server per request). */
export async function startMcpMailServer(mailUrl: string): Promise<McpMailServer> {
  const http: Server = createServer((req, res) => {
    const server = mailServer(mailUrl);
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
        res.end(JSON.stringify({ error: err.message }));
      });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
