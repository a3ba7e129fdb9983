// The helpdesk's activities, as a user writes them for production: one MCP client per worker process,
// connected on first use and kept; mail over a keep-alive agent with a token fetched once and cached.
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The helpdesk's activities, against the services at `serviceUrl`. */
export type HelpdeskActivities = ReturnType<typeof createActivities>;

/** A request over the process's keep-alive agent: its status and text. */
function request(agent: http.Agent, url: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export function createActivities(serviceUrl: string) {
  let desk: Promise<Client> | undefined;
  let token: Promise<string> | undefined;
  const agent = new http.Agent({ keepAlive: true });

  // Connected by the first activity that needs it, and kept for every later one in this process.
  const ticketDesk = () =>
    (desk ??= (async () => {
      const client = new Client({ name: 'helpdesk', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${serviceUrl}/mcp`)));
      return client;
    })().catch((err: unknown) => {
      desk = undefined;
      throw err;
    }));
  // Fetched once per process, as a client-credentials token is.
  const mailToken = () =>
    (token ??= request(agent, `${serviceUrl}/token`, { 'content-type': 'application/json' }, '{}').then((r) => {
      if (r.status !== 200) throw new Error(`token: ${r.status} ${r.text}`);
      return r.text;
    })).catch((err: unknown) => {
      token = undefined;
      throw err;
    });

  return {
    async openTicket(ticket: string): Promise<void> {
      const result = await (await ticketDesk()).callTool({ name: 'open_ticket', arguments: { ticket } });
      if (result.isError) throw new Error(`open_ticket failed: ${JSON.stringify(result.content)}`);
    },
    async mailCustomer(ticket: string): Promise<void> {
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${await mailToken()}` };
      const res = await request(agent, `${serviceUrl}/mail`, headers, JSON.stringify({ ticket }));
      if (res.status !== 202) throw new Error(`mail: ${res.status} ${res.text}`);
    },
  };
}
