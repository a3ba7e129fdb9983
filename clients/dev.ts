// `npm run dev`: a Temporal dev server, the tracker, the model server and a worker that is started again when it dies.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { closeOnSignal, runMain } from '../common/cli';
import { waitForPort } from '../common/free-port';
import { buildCodecServer } from '../codec/app';
import { codecFromEnv } from '../common/payload-codec';
import { AGENT_SEARCH_ATTRIBUTES } from '../common/search-attributes';
import { spawnDevServer } from '../common/dev-server';
import { findTemporalCli, NoTemporalCliError } from '../common/temporal-cli';
import { buildModelServer } from '../model/app';
import { buildTracker } from '../tracker/app';
import { devDir, devKeySecret, devTokens, devWorkerEnv } from './dev-env';
import { Store } from '../tracker/store';

const ROOT = path.resolve(__dirname, '..');
const TEMPORAL_PORT = Number(process.env.DEV_TEMPORAL_PORT ?? 7233);
const UI_PORT = Number(process.env.DEV_UI_PORT ?? 8233);
const TRACKER_PORT = Number(process.env.DEV_TRACKER_PORT ?? 4100);
const MODEL_PORT = Number(process.env.DEV_MODEL_PORT ?? 4200);
const CODEC_PORT = Number(process.env.DEV_CODEC_PORT ?? 8081);

/**
 * `npm run dev`: everything on one machine. A Temporal dev server (the `temporal` CLI) with its Web UI,
 * keeping its state in `.dev/` (or `DEV_DIR`) and registering the agent's search attributes, the
 * tracker on `.dev/tracker.db`, the scripted model server, and a worker as its own process, so that it
 * can be killed and restarted by hand. Ports: `DEV_TEMPORAL_PORT`, `DEV_UI_PORT`, `DEV_TRACKER_PORT`, `DEV_MODEL_PORT`,
 * `DEV_CODEC_PORT` (the codec endpoint, started when `TEMPORAL_PAYLOAD_KEY` is set).
 */
async function main(): Promise<void> {
  const cli = findTemporalCli();
  if (!cli) throw new NoTemporalCliError();
  const dir = devDir();
  mkdirSync(path.join(dir, 'payloads'), { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const tokens = devTokens();

  // With TEMPORAL_PAYLOAD_KEY set, the worker and clients seal payloads, and the Web UI opens them
  // through a codec endpoint of ours, which only the UI's origin may call.
  const codec = codecFromEnv();
  let codecUrl: string | null = null;
  if (codec) {
    const codecApp = buildCodecServer({
      codec,
      origins: [`http://localhost:${UI_PORT}`, `http://127.0.0.1:${UI_PORT}`],
      // As `npm run codec` does: CODEC_TOKEN, when set, is required of every caller (set it in the Web UI too).
      ...(tokens.codec ? { token: tokens.codec } : {}),
    });
    await codecApp.listen({ port: CODEC_PORT, host: '127.0.0.1' });
    codecUrl = `http://127.0.0.1:${CODEC_PORT}`;
    stops.push(() => codecApp.close());
  }

  const server = spawnDevServer(
    {
      port: TEMPORAL_PORT,
      uiPort: UI_PORT,
      dbFile: path.join(dir, 'temporal.db'),
      searchAttributes: AGENT_SEARCH_ATTRIBUTES,
      flags: codecUrl ? ['--ui-codec-endpoint', codecUrl] : [],
    },
    'inherit',
  );
  stops.push(async () => void server.kill('SIGTERM'));
  process.once('exit', () => server.kill('SIGTERM')); // even if shutdown is cut short
  await waitForPort(TEMPORAL_PORT, 30_000);

  const store = new Store(path.join(dir, 'tracker.db'));
  // As `npm run tracker` does: TRACKER_TOKEN (and TRACKER_TOKENS, more accounts), when set, is required
  // of every caller; the worker sends TRACKER_TOKEN.
  const tracker = buildTracker({ store, ...(tokens.tracker.length ? { token: tokens.tracker } : {}) });
  await tracker.listen({ port: TRACKER_PORT, host: '127.0.0.1' });
  stops.push(async () => {
    await tracker.close();
    store.close();
  });
  const model = buildModelServer();
  await model.listen({ port: MODEL_PORT, host: '127.0.0.1' });
  stops.push(() => model.close());

  // The worker derives keys under a secret kept in the dev folder, so reading a history does not give them away.
  const ports = { temporal: TEMPORAL_PORT, tracker: TRACKER_PORT, model: MODEL_PORT };
  const env = devWorkerEnv(process.env, ports, dir, devKeySecret());
  const ownModel = process.env.OPENAI_BASE_URL ? env.OPENAI_BASE_URL : null;
  let worker: ChildProcess | null = null;
  const startWorker = () => {
    worker = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'examples', 'triage', 'worker.ts')], {
      env,
      stdio: 'inherit',
    });
    worker.once('exit', (code, signal) => {
      if (stopping) return;
      console.log(`worker ${worker!.pid} exited (${signal ?? code}); starting a new one in 1 s`);
      setTimeout(startWorker, 1000);
    });
    console.log(`worker pid ${worker.pid}: kill -9 it at any time; a new one takes over the runs`);
  };
  let stopping = false;
  startWorker();
  process.once('exit', () => worker?.kill('SIGTERM'));
  stops.push(async () => {
    stopping = true;
    worker?.kill('SIGTERM');
  });

  console.log(
    [
      `Temporal server  localhost:${TEMPORAL_PORT} (${cli})`,
      `Temporal Web UI  http://localhost:${UI_PORT}`,
      `payload store    ${path.relative(process.cwd(), env.AGENT_PAYLOAD_DIR!) || '.'} (tool outputs of 16 KiB or more, and the conversation's turns)`,
      `tracker          http://127.0.0.1:${TRACKER_PORT} (db ${path.relative(process.cwd(), path.join(dir, 'tracker.db'))}, keyed${tokens.tracker.length ? ', token required' : ''})`,
      `call keys        derived under the secret in ${path.relative(process.cwd(), path.join(dir, 'key-secret'))} (AGENT_KEY_SECRET to give your own)`,
      ownModel
        ? `model            ${ownModel} (yours, from OPENAI_BASE_URL; the scripted one also serves at http://127.0.0.1:${MODEL_PORT}/v1)`
        : `model server     http://127.0.0.1:${MODEL_PORT}/v1 (scripted triage; set OPENAI_BASE_URL for a model of your own)`,
      ...(codecUrl
        ? [
            `codec endpoint   ${codecUrl} (payloads encrypted with TEMPORAL_PAYLOAD_KEY; the Web UI opens them${tokens.codec ? '; CODEC_TOKEN required' : ''})`,
          ]
        : []),
      `then, in another shell: npm run start -- --task "Checkout fails with a coupon" --wait`,
    ].join('\n'),
  );
  closeOnSignal(async () => {
    for (const stop of stops.reverse()) await stop();
  });
}

runMain(main);
