// An activity's `http.accepted` point is reached in that activity's own async context, even when its
// response comes on a kept connection that another activity opened: the crash hook reads the attempt
// it is in from there (the deadline check, the attempts taken while parked), and a point read in the
// opener's context was judged by another call's deadline (and dropped as abandoned, under load).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asyncLocalStorage } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { setCrashHook } from '../common/crash-points';
import { watchHttp } from '../sweep/plugin/http-points';

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mails`;
  watchHttp();
});
afterAll(async () => {
  setCrashHook(null);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

test.each([
  ['fetch', async () => void (await (await fetch(url, { method: 'POST', body: '{}' })).text())],
  [
    'node:http',
    () =>
      new Promise<void>((resolve, reject) => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const http = require('node:http') as typeof import('node:http');
        const agent = ((globalThis as { keptAgent?: import('node:http').Agent }).keptAgent ??= new http.Agent({
          keepAlive: true,
          maxSockets: 1,
        }));
        http
          .request(url, { method: 'POST', agent }, (res) => {
            res.resume();
            res.on('end', resolve);
          })
          .on('error', reject)
          .end('{}');
      }),
  ],
])('%s: each request’s point in its own activity’s context, on one kept connection', async (_how, send) => {
  const seen: Array<{ detail: string; activity?: string }> = [];
  setCrashHook((name, context) => {
    if (name === 'http.accepted')
      seen.push({ detail: context.workflowId, activity: asyncLocalStorage.getStore()?.info.activityId });
  });
  for (const id of ['a1', 'a2', 'a3']) {
    const env = new MockActivityEnvironment({
      activityId: id,
      workflowExecution: { workflowId: `run-${id}`, runId: `r-${id}` },
    });
    await env.run(send);
  }
  setCrashHook(null);
  expect(seen).toEqual([
    { detail: 'run-a1', activity: 'a1' },
    { detail: 'run-a2', activity: 'a2' },
    { detail: 'run-a3', activity: 'a3' },
  ]);
});
