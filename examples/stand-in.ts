// A receiver's stand-in for the examples' sweeps: a small HTTP server that acts on each request, and,
// when told to, answers a request whose Idempotency-Key it has seen with its first answer.
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the stand-in answers: a status code and a text. */
export interface Answer {
  code: number;
  text: string;
}

/** A request as the stand-in's `act` sees it: its method, its path, its headers and its JSON body. */
export interface StandInRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/**
 * Starts a stand-in on a free loopback port that answers each request with `act`. With `honourKeys`,
 * a request with an `Idempotency-Key` it has seen on the same path gets the first answer again and
 * `act` is not called: the receiver acts once per key. Without, every request acts.
 */
export async function startStandIn(
  options: { honourKeys: boolean },
  act: (req: StandInRequest) => Answer,
): Promise<{ url: string; close(): Promise<void> }> {
  const answers = new Map<string, Answer>();
  const server = createServer((req, res) => {
    const key = req.headers['idempotency-key'];
    const keyed = options.honourKeys && typeof key === 'string' ? `${req.url} ${key}` : undefined;
    jsonBody(req)
      .then((body) => {
        let answer = keyed ? answers.get(keyed) : undefined;
        if (!answer) {
          answer = act({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
          if (keyed) answers.set(keyed, answer);
        }
        res.writeHead(answer.code, { 'content-type': 'text/plain' }).end(answer.text);
      })
      .catch((err: Error) => res.writeHead(400).end(err.message));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
