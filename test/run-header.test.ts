// The run header: a request made in an activity names its run, by fetch and by node:http, whatever
// its options; a request made outside an activity does not. Against a real local HTTP server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { asyncLocalStorage, type Context } from '@temporalio/activity';
import { addRunHeader, RUN_HEADER } from '../sweep/plugin/run-header';

let server: http.Server;
let base: string;
const seen: Array<{ path: string; run: string | undefined; contentType: string | undefined }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({
      path: req.url ?? '',
      run: req.headers[RUN_HEADER] as string | undefined,
      contentType: req.headers['content-type'],
    });
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  addRunHeader();
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Runs `fn` as the activity of workflow `workflowId` would (the context the SDK gives an activity). */
const inActivity = <T>(workflowId: string, fn: () => Promise<T>) =>
  asyncLocalStorage.run({ info: { workflowExecution: { workflowId, runId: 'r' } } } as unknown as Context, fn);

const answered = (req: http.ClientRequest) =>
  new Promise<void>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
  });

test("a request made in an activity names its run: fetch, http.get, http.request with a URL, with options, with headers as a list; the request's own headers are kept", async () => {
  await inActivity('wf-fetch', () => fetch(`${base}/fetch`, { headers: { 'content-type': 'text/plain' } }));
  await inActivity('wf-get', () => answered(http.get(`${base}/get`)));
  await inActivity('wf-url', () => {
    const req = http.request(`${base}/url`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    req.end('{}');
    return answered(req);
  });
  await inActivity('wf-options', () => {
    const { port } = server.address() as AddressInfo;
    const req = http.request({ host: '127.0.0.1', port, path: '/options', method: 'POST' });
    req.end('x');
    return answered(req);
  });
  await inActivity('wf-list', () => {
    // Headers as a raw list of names and values: Node then adds none of its own, not even Host.
    const req = http.request(`${base}/list`, {
      headers: ['host', new URL(base).host, 'content-type', 'text/csv'] as unknown as http.OutgoingHttpHeaders,
    });
    req.end();
    return answered(req);
  });
  expect(seen.splice(0)).toEqual([
    { path: '/fetch', run: 'wf-fetch', contentType: 'text/plain' },
    { path: '/get', run: 'wf-get', contentType: undefined },
    { path: '/url', run: 'wf-url', contentType: 'application/json' },
    { path: '/options', run: 'wf-options', contentType: undefined },
    { path: '/list', run: 'wf-list', contentType: 'text/csv' },
  ]);
});

test('a request made outside an activity carries no run header', async () => {
  await fetch(`${base}/plain-fetch`);
  await answered(http.get(`${base}/plain-get`));
  expect(seen.splice(0)).toEqual([
    { path: '/plain-fetch', run: undefined, contentType: undefined },
    { path: '/plain-get', run: undefined, contentType: undefined },
  ]);
});
