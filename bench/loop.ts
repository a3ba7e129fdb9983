// `npm run bench:loop`: the agent loop at the size of real agent work, measured in one run.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, type Worker } from '@temporalio/worker';
import { parseCommandLine, runMain, wholeNumbers } from '../common/cli';
import { connectTemporal } from '../common/temporal-connection';
import { chainHistories, historySizes } from '../common/history-events';
import { devServerExecutable } from '../common/temporal-cli';
import { startAgentRun } from '../lib/client';
import { createAgentWorker } from '../lib/worker';
import { externalStorage, LocalStorageDriver } from '../lib/store';
import { fetchPage, page, readingModel, readingTask, sentToModel } from './reading-agent';

const USAGE = 'npm run bench:loop -- [--turns 20,50,200] [--bytes 1000,100000,500000] [--runs 50] [--skip-sizes]';
type Event = temporal.api.history.v1.IHistoryEvent;

/** What one reading run left, measured from its histories, the model's side and the store. */
interface SizeRow {
  turns: number;
  bytes: number;
  store: boolean;
  /** `done`, or why not: the failure's type, or `not done in N s`. */
  outcome: string;
  seconds: number;
  executions: number;
  historyBytes: number;
  largestPayload: number;
  /** Bytes the model was sent on the last turn, and on all turns. */
  sentLast: number;
  sentAll: number;
  storeBytes: number;
}

/**
 * `npm run bench:loop`: an agent that reads a page of S bytes per turn for N turns, through the
 * package's public entry points, on a dev server with default limits; with a payload store (the local
 * driver) and without one. For each (N, S): completed or not, history bytes in all and per turn, the
 * largest payload, bytes sent to the model per turn, the store's bytes; then the loop's throughput:
 * concurrent 3-turn runs of 1 KB on one worker, runs/s, and where a tool call's time goes against
 * calling the tool directly.
 *
 * A benchmark, not a test: it prints figures and asserts nothing.
 */
async function main(): Promise<void> {
  const { values } = parseCommandLine(
    process.argv.slice(2),
    {
      turns: { type: 'string', default: '20,50,200' },
      bytes: { type: 'string', default: '1000,100000,500000' },
      runs: { type: 'string', default: '50' },
      'skip-sizes': { type: 'boolean', default: false },
    },
    USAGE,
  );
  const list = (text: string, flag: string) => wholeNumbers(text, flag, USAGE);
  const turnsList = list(values.turns!, 'turns');
  const bytesList = list(values.bytes!, 'bytes');
  const [runs] = list(values.runs!, 'runs');
  const say = (line: string) => console.error(line);
  // The SDK's INFO lines (bundling, state changes) would bury the figures.
  // The core's warning for each payload over 512 KB would too: what it warns of is what the table shows.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
  });

  const storeDir = mkdtempSync(path.join(tmpdir(), 'bench-loop-store-'));
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: devServerExecutable(), log: { format: 'pretty', level: 'error' } },
  });
  const reader = await connectTemporal(env.address);
  // The client reads what the workers stored (a result over the threshold is a reference too).
  const storage = externalStorage(new LocalStorageDriver({ dir: storeDir }));
  const client = new Client({ connection: reader, dataConverter: { externalStorage: storage } });
  const workers: Worker[] = [];
  const running: Array<Promise<void>> = [];
  const worker = async (taskQueue: string, store: boolean) => {
    const w = await createAgentWorker({
      connection: env.nativeConnection,
      taskQueue,
      tools: [fetchPage],
      modelProvider: readingModel,
      ...(store
        ? { dataConverter: { externalStorage: externalStorage(new LocalStorageDriver({ dir: storeDir })) } }
        : {}),
    });
    workers.push(w);
    running.push(w.run());
  };
  try {
    await worker('stored', true);
    await worker('inline', false);
    if (!values['skip-sizes']) {
      const rows: SizeRow[] = [];
      for (const turns of turnsList)
        for (const bytes of bytesList)
          for (const store of [true, false]) {
            say(`sizes: ${turns} turns x ${bytes} bytes, ${store ? 'with' : 'without'} a store...`);
            rows.push(await readingRun(client, storeDir, turns, bytes, store));
          }
      console.log(formatSizes(rows));
    }
    say(`throughput: ${runs} concurrent runs of 3 turns x 1 KB on one worker...`);
    console.log(await throughput(client, runs));
  } finally {
    for (const w of workers) w.shutdown();
    await Promise.all(running);
    await reader.close();
    await env.teardown();
    rmSync(storeDir, { recursive: true, force: true });
  }
}

/** One reading run, measured. A run that does not end in time is terminated and said so. */
async function readingRun(
  client: Client,
  storeDir: string,
  turns: number,
  bytes: number,
  store: boolean,
): Promise<SizeRow> {
  const started = performance.now();
  const handle = await startAgentRun(client, {
    taskQueue: store ? 'stored' : 'inline',
    task: readingTask(turns, bytes),
    tools: ['fetch_page'],
    maxTurns: turns + 1,
  });
  const limitMs = 300_000;
  const outcome = await Promise.race([
    handle.result().then(
      () => 'done',
      (err: unknown) => {
        const cause = err instanceof WorkflowFailedError ? (err.cause as { type?: string } | undefined) : undefined;
        return `failed: ${cause?.type ?? (err as Error).message}`;
      },
    ),
    new Promise<string>((resolve) => setTimeout(() => resolve(`not done in ${limitMs / 1000} s`), limitMs)),
  ]);
  const seconds = (performance.now() - started) / 1000;
  if (outcome.startsWith('not done')) await handle.terminate('the benchmark gave up on it').catch(() => undefined);
  const first = (handle as typeof handle & { firstExecutionRunId: string }).firstExecutionRunId;
  const histories = await chainHistories(client, handle.workflowId, first);
  const measured = histories.map(historySizes);
  // startAgentRun names the workflow `agent-RUN_ID`; the model sees the run id.
  const sent = sentToModel.get(handle.workflowId.replace(/^agent-/, '')) ?? [];
  return {
    turns,
    bytes,
    store,
    outcome,
    seconds,
    executions: histories.length,
    historyBytes: measured.reduce((n, m) => n + m.bytes, 0),
    largestPayload: Math.max(0, ...measured.map((m) => m.largestPayload)),
    sentLast: sent.at(-1) ?? 0,
    sentAll: sent.reduce((n, b) => n + b, 0),
    storeBytes: store ? folderBytes(path.join(storeDir, encodeURIComponent(handle.workflowId))) : 0,
  };
}

/** Bytes of the files in a folder (a workflow's objects in the local store). */
function folderBytes(folder: string): number {
  try {
    return readdirSync(folder).reduce((n, f) => n + statSync(path.join(folder, f)).size, 0);
  } catch {
    return 0;
  }
}

const kb = (n: number) =>
  n >= 10_000_000 ? `${(n / 1e6).toFixed(1)}M` : n >= 10_000 ? `${Math.round(n / 1e3)}K` : `${n}`;

/** The sizes table: one line per (N, S, store). */
function formatSizes(rows: SizeRow[]): string {
  const head = [
    'turns',
    'page',
    'store',
    'outcome',
    's',
    'runs',
    'history',
    'per turn',
    'largest',
    'model/turn',
    'model last',
    'store bytes',
    'hist/pages',
  ];
  const lines = rows.map((r) => {
    const pages = r.turns * r.bytes;
    return [
      r.turns,
      kb(r.bytes),
      r.store ? 'yes' : 'no',
      r.outcome,
      r.seconds.toFixed(1),
      r.executions,
      kb(r.historyBytes),
      kb(Math.round(r.historyBytes / r.turns)),
      kb(r.largestPayload),
      kb(Math.round(r.sentAll / Math.max(1, r.turns + 1))),
      kb(r.sentLast),
      r.store ? kb(r.storeBytes) : '-',
      (r.historyBytes / pages).toFixed(2),
    ].map(String);
  });
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) =>
    cells.map((c, i) => (i === 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [
    'sizes: a page of S bytes per turn for N turns (history: every execution of the chain, as the server stores it)',
    fmt(head),
    ...lines.map(fmt),
  ].join('\n');
}

/** The dev server this process started (`temporal server start-dev`), by its parent; `null` if not found. */
function devServerPid(): number | null {
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('start-dev'))
        return Number(entry);
    } catch {
      // A process that ended while we looked.
    }
  }
  return null;
}

/** CPU seconds a process has used (user and system), from /proc. */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Medians and 95th percentiles, in ms. */
function spread(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return `median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms`;
}

const ms = (e: Event) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;

/**
 * `runs` concurrent runs of 3 turns of 1 KB on the stored worker, timed from the first start to the
 * last end; then, from their histories, where a tool call's time goes: from the model's reply to the
 * tool's schedule (a workflow task), from schedule to start (the task queue), and the activity itself,
 * against calling the tool directly.
 */
async function throughput(client: Client, runs: number): Promise<string> {
  const server = devServerPid();
  // One run first, so the worker's caches and the server are warm.
  await (
    await startAgentRun(client, { taskQueue: 'stored', task: readingTask(3, 1000), tools: ['fetch_page'] })
  ).result();
  const started = performance.now();
  const cpuAtStart = process.cpuUsage();
  const serverAtStart = server === null ? null : cpuSecondsOf(server);
  const handles = await Promise.all(
    Array.from({ length: runs }, () =>
      startAgentRun(client, { taskQueue: 'stored', task: readingTask(3, 1000), tools: ['fetch_page'] }),
    ),
  );
  await Promise.all(handles.map((h) => h.result()));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpuAtStart);
  const workerCpu = (used.user + used.system) / 1e6;
  const serverCpu = server === null || serverAtStart === null ? null : cpuSecondsOf(server) - serverAtStart;

  const toSchedule: number[] = [];
  const queued: number[] = [];
  const running: number[] = [];
  const workflowTasks: number[] = [];
  for (const h of handles) {
    const events = (await client.workflow.getHandle(h.workflowId).fetchHistory()).events ?? [];
    const byId = new Map(events.map((e) => [Number(e.eventId), e]));
    let replyAt: number | undefined;
    for (const e of events) {
      const done = e.activityTaskCompletedEventAttributes;
      if (done) {
        const scheduled = byId.get(Number(done.scheduledEventId));
        const start = byId.get(Number(done.startedEventId));
        if (scheduled?.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel') replyAt = ms(e);
        if (scheduled?.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool' && start) {
          queued.push(ms(start) - ms(scheduled));
          running.push(ms(e) - ms(start));
        }
      }
      const scheduledTool = e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool';
      if (scheduledTool && replyAt !== undefined) toSchedule.push(ms(e) - replyAt);
      const completedTask = e.workflowTaskCompletedEventAttributes;
      if (completedTask) {
        const scheduled = byId.get(Number(completedTask.scheduledEventId));
        if (scheduled) workflowTasks.push(ms(e) - ms(scheduled));
      }
    }
  }
  const direct = performance.now();
  for (let i = 0; i < 1000; i++) page(i, 1000);
  const directMs = (performance.now() - direct) / 1000;
  return [
    `throughput: ${runs} concurrent runs of 3 turns x 1 KB on one worker (with a store)`,
    `  ${(runs / seconds).toFixed(1)} runs/s (${seconds.toFixed(2)} s for ${runs} runs, ${(runs * 3) / seconds > 0 ? ((runs * 3) / seconds).toFixed(1) : '0'} tool calls/s)`,
    `  a tool call, from the model's reply to its result (${queued.length} calls):`,
    `    reply to schedule (a workflow task): ${spread(toSchedule)}`,
    `    schedule to start (the task queue):  ${spread(queued)}`,
    `    start to end (the activity):         ${spread(running)}`,
    `    the tool called directly:            ${directMs.toFixed(3)} ms`,
    `  workflow tasks, scheduled to completed (${workflowTasks.length}): ${spread(workflowTasks)}`,
    `  CPU in those ${seconds.toFixed(2)} s: this process (worker and client) ${workerCpu.toFixed(2)} core-s, ` +
      `the dev server ${serverCpu === null ? 'not found' : `${serverCpu.toFixed(2)} core-s`}, of ${(2 * seconds).toFixed(2)} on 2 cores`,
  ].join('\n');
}

runMain(main);
