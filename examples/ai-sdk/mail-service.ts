// The example's outside world: a mail service that records every mail it sends and outlives every
// worker the sweep kills. A request with an `Idempotency-Key` it has seen gets the first answer again
// and sends nothing; a request without one always sends.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running mail service: its URL and each run's mails. */
export interface MailService {
  url: string;
  /** Mails sent whose subject names the run. */
  sentFor(run: string): number;
  /** Requests that came with a key, and those answered from their key without sending. */
  keyed(): { requests: number; replayed: number };
  close(): Promise<void>;
}

export async function startMailService(): Promise<MailService> {
  const sent: Array<{ to: string; subject: string; run: string }> = [];
  const answers = new Map<string, string>();
  let requests = 0;
  let replayed = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      let mail: { to?: unknown; subject?: unknown; run?: unknown };
      try {
        mail = JSON.parse(body) as typeof mail;
      } catch {
        mail = {};
      }
      if (
        req.method !== 'POST' ||
        req.url !== '/mails' ||
        typeof mail.to !== 'string' ||
        typeof mail.run !== 'string'
      ) {
        res.writeHead(400).end('POST /mails with { to, subject, run }');
        return;
      }
      const key = req.headers['idempotency-key'];
      if (typeof key === 'string') requests += 1;
      let answer = typeof key === 'string' ? answers.get(key) : undefined;
      if (answer !== undefined) replayed += 1;
      else {
        sent.push({ to: mail.to, subject: String(mail.subject ?? ''), run: mail.run });
        answer = JSON.stringify({ id: `mail-${sent.length}` });
        if (typeof key === 'string') answers.set(key, answer);
      }
      res.writeHead(201, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sentFor: (run) => sent.filter((m) => m.run === run).length,
    keyed: () => ({ requests, replayed }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
