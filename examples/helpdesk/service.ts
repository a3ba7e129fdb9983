// The helpdesk example's services on one loopback port: a ticket desk over MCP (sessions kept by
// its clients), a token endpoint, and a mail service that wants the token. It counts what each did.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** The services, and how many tickets and mails each run's ticket got. */
export interface HelpdeskService {
  url: string;
  /** What one run left: a second ticket or mail is a duplicate; none where the clean run had one is missing. */
  damage(ticket: string): { dups: number; missing: number };
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

/** Starts the services on a free loopback port. Nothing here honours an idempotency key: a repeat acts again. */
export async function startHelpdeskService(): Promise<HelpdeskService> {
  const tickets = new Map<string, number>();
  const mails = new Map<string, number>();
  const tokens = new Set<string>();
  // One MCP session per client that says `initialize`, kept until the process ends.
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const desk = () => {
    const server = new Server({ name: 'ticket-desk', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        {
          name: 'open_ticket',
          description: 'Open a ticket.',
          inputSchema: { type: 'object', properties: { ticket: { type: 'string' } }, required: ['ticket'] },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (req) => {
      const ticket = String(req.params.arguments?.ticket ?? '');
      tickets.set(ticket, (tickets.get(ticket) ?? 0) + 1);
      return { content: [{ type: 'text', text: `ticket ${ticket} opened` }] };
    });
    return server;
  };

  const mcp = async (req: IncomingMessage, res: ServerResponse) => {
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    if (req.method !== 'POST') return void res.writeHead(400).end('no session');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
    });
    await desk().connect(transport);
    await transport.handleRequest(req, res);
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const reply = (code: number, text: string) => res.writeHead(code, { 'content-type': 'text/plain' }).end(text);
    (async () => {
      if (path === '/mcp') return mcp(req, res);
      if (path === '/token' && req.method === 'POST') {
        await bodyOf(req);
        const token = randomUUID();
        tokens.add(token);
        return reply(200, token);
      }
      if (path === '/mail' && req.method === 'POST') {
        if (!tokens.has((req.headers.authorization ?? '').replace(/^Bearer /, ''))) return reply(401, 'bad token');
        const { ticket } = JSON.parse(await bodyOf(req)) as { ticket: string };
        mails.set(ticket, (mails.get(ticket) ?? 0) + 1);
        return reply(202, 'queued');
      }
      reply(404, 'not found');
    })().catch((err: Error) => {
      if (!res.headersSent) reply(500, err.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    damage(ticket) {
      const t = tickets.get(ticket) ?? 0;
      const m = mails.get(ticket) ?? 0;
      return { dups: Math.max(0, t - 1) + Math.max(0, m - 1), missing: (t === 0 ? 1 : 0) + (m === 0 ? 1 : 0) };
    },
    close: () =>
      new Promise((resolve) => {
        for (const t of sessions.values()) void t.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
