// Canary secrets, configured the way a user would (tokens in the environment, `${VAR}` in the MCP
// configuration), must never leave the worker: not in history, not in the worker's log.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { ROOT, startChild, type Child } from './helpers/processes';
import { startRun } from './helpers/runs';
import { listeningTracker } from './helpers/tracker';
import { startSystem, type System } from './helpers/system';

const CANARY_TRACKER = 'canary-tracker-token-9f3a1c';
const CANARY_MCP = 'canary-mcp-token-52be07';
const TASK_QUEUE = 'secrets';
let system: System;
let tracker: Awaited<ReturnType<typeof listeningTracker>>;
const children: Child[] = [];

beforeAll(async () => {
  system = await startSystem();
  tracker = await listeningTracker({ token: CANARY_TRACKER });
}, 120_000);

afterAll(async () => {
  // SIGTERM: each stops by itself, though the worker's MCP client still holds a stream to the HTTP server.
  for (const c of children) await c.kill('SIGTERM');
  await tracker?.close();
  await system?.close();
});

test('tokens given by environment and ${VAR} reach the tracker and the MCP servers, and appear in no history and no log line', async () => {
  const trackerUrl = tracker.url;
  const http = startChild('mcp/server.ts', ['--port', '0', '--tracker', trackerUrl], {
    MCP_TOKEN: CANARY_MCP,
    TRACKER_TOKEN: CANARY_TRACKER,
  });
  children.push(http);
  const [, httpUrl] = await http.waitFor(/listening on (http:\/\/\S+\/mcp)/);
  const config = path.join(system.dir, 'mcp-secrets.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        'tracker-http': { url: httpUrl, headers: { Authorization: 'Bearer ${MCP_SECRET}' } },
        'tracker-stdio': {
          command: process.execPath,
          args: ['--import', 'tsx', 'mcp/server.ts', '--tracker', trackerUrl],
          env: { TRACKER_TOKEN: '${TRACKER_SECRET}' },
          cwd: ROOT,
        },
      },
    }),
  );
  const worker = startChild('examples/triage/worker.ts', [], {
    TEMPORAL_ADDRESS: system.env.address,
    TASK_QUEUE,
    TRACKER_URL: trackerUrl,
    TRACKER_TOKEN: CANARY_TRACKER,
    OPENAI_BASE_URL: `${system.modelUrl}/v1`,
    MCP_CONFIG: config,
    MCP_SECRET: CANARY_MCP,
    TRACKER_SECRET: CANARY_TRACKER,
    WORKER_LOG_LEVEL: 'DEBUG',
  });
  children.push(worker);
  await worker.waitFor(/worker serving task queue/, 90_000);

  const runs = [
    { repo: 'built-in' },
    { repo: 'over-http', mcpServers: ['tracker-http'] },
    { repo: 'over-stdio', mcpServers: ['tracker-stdio'] },
  ];
  for (const input of runs) {
    const { handle } = await startRun(system.env.client, TASK_QUEUE, input);
    await handle.result();
    // Each run's calls reached the tracker, which refuses anything without its token.
    expect(tracker.store.counts(input.repo)).toEqual({ issues: 2, comments: 1 });
    const history = await handle.fetchHistory();
    const raw = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
    expect([input.repo, raw.includes(CANARY_TRACKER), raw.includes(CANARY_MCP)]).toEqual([input.repo, false, false]);
  }
  const log = worker.output();
  expect(log).toMatch(/DEBUG/); // the worker did log, verbosely
  expect(log).not.toContain(CANARY_TRACKER);
  expect(log).not.toContain(CANARY_MCP);
}, 240_000);
