// The dev servers the sweep starts for users' workflows fire a timer close to its time; by default a
// 100 ms timer fires about a second late (`PRECISE_TIMER_FLAGS`).
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { KillableServerHost } from '../sweep/hosts/killable-server-host';
import { configSuite } from '../sweep/config/config-suite';
import { agentSuite } from '../agent-sweep/agent-suite';
import { selectRows } from '../agent-sweep/rows';

const millis = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

/** How late each of the run's three 100 ms timers fired, in ms, by the server's own event times. */
async function lateness(preciseTimers: boolean, code: string): Promise<number[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'precise-timers-'));
  const server = await KillableServerHost.start(dir, 'timers', [], preciseTimers);
  const connection = await NativeConnection.connect({ address: server.address });
  try {
    const worker = await Worker.create({ connection, taskQueue: 'timers', workflowBundle: { code } });
    const handle = await worker.runUntil(async () => {
      const h = await server.client.workflow.start('sleepsThrice', { taskQueue: 'timers', workflowId: 'timers' });
      await h.result();
      return h;
    });
    const started = new Map<string, number>();
    const late: number[] = [];
    for (const e of (await handle.fetchHistory()).events ?? []) {
      if (e.timerStartedEventAttributes) started.set(e.timerStartedEventAttributes.timerId!, millis(e.eventTime));
      if (e.timerFiredEventAttributes)
        late.push(millis(e.eventTime) - started.get(e.timerFiredEventAttributes.timerId!)! - 100);
    }
    return late;
  } finally {
    await connection.close();
    await server.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe('timers on the sweep’s dev servers', () => {
  test('with precise timers a 100 ms timer fires hundreds of milliseconds sooner than on a default server', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('./fixtures/timers/workflows'),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
    });
    const precise = await lateness(true, code);
    const byDefault = await lateness(false, code);
    expect([precise.length, byDefault.length]).toEqual([3, 3]);
    // By default the server's timer queue reads no task due within 1 s of now: about 0.9 s late. The
    // comparison is within one test, so a busy machine delays both.
    expect(median(byDefault) - median(precise)).toBeGreaterThan(400);
  }, 90_000);

  test('a config file’s sweep asks for them; the agent’s suite does not', () => {
    expect(configSuite('any.config.ts').preciseTimers).toBe(true);
    expect(agentSuite(selectRows('agent')).preciseTimers).toBeUndefined();
  });
});
