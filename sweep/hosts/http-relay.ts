// Passing an HTTP request on to a receiver and reading its whole answer: what the proxies in front of receivers share.
import http from 'node:http';

/** A receiver's whole answer. */
export interface RelayedAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * Passes `req` (its body already read) on to the receiver at `upstream` and reads its whole answer.
 * `freshConnection`: a connection of its own, never a kept-alive one (a receiver that is killed and
 * started again leaves none to reuse).
 */
export function relay(
  upstream: URL,
  req: http.IncomingMessage,
  body: Buffer,
  freshConnection = false,
): Promise<RelayedAnswer> {
  return new Promise((resolve, reject) => {
    const out = http.request(
      new URL(req.url ?? '/', upstream),
      {
        method: req.method,
        headers: { ...req.headers, host: upstream.host },
        ...(freshConnection ? { agent: false } : {}),
      },
      (answer) => {
        readAll(answer).then(
          (b) => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: b }),
          reject,
        );
      },
    );
    out.on('error', reject);
    out.end(body);
  });
}

/** Everything a stream holds, once it has ended. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
