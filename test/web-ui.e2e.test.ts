// `npm run dev` as a newcomer runs it, and its Web UI in a real headless Chromium: a run that waits for
// a person is found by its search attribute, and its page tells its story (the task as its summary,
// what it waits for and the command that answers, each activity's summary). With a payload key set,
// as here, all of it is sealed in history and the UI reads it through npm run dev's codec endpoint.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findTemporalCli } from '../common/temporal-cli';
import { findChromium } from '../sweep/report/screenshot';
import { freePort, ROOT, scriptFile, startChild, type Child } from './helpers/processes';
import { eventually } from './helpers/runs';

const run = promisify(execFile);

/** The page's text, with that of its frames (the Web UI renders Markdown in a sandboxed frame). */
async function allText(page: Page): Promise<string> {
  const texts = await Promise.all(
    page.frames().map((f) =>
      f
        .locator('body')
        .innerText()
        .catch(() => ''),
    ),
  );
  return texts.join('\n');
}

/**
 * Opens `url` and waits until its text (frames included) contains every one of `wanted`, loading the
 * page again every 15 s (the UI fetches some parts once); returns the text.
 */
async function pageShowing(page: Page, url: string, wanted: string[], timeoutMs = 90_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    await page.goto(url);
    const reloadAt = Math.min(Date.now() + 15_000, deadline);
    while (Date.now() < reloadAt) {
      last = await allText(page);
      if (wanted.every((w) => last.includes(w))) return last;
      await page.waitForTimeout(500);
    }
  }
  throw new Error(
    `${url} did not show ${JSON.stringify(wanted.filter((w) => !last.includes(w)))}; it showed:\n${last}`,
  );
}

let dev: Child;
let browser: Browser;
const dir = mkdtempSync(path.join(os.tmpdir(), 'web-ui-'));
const ports = { temporal: 0, ui: 0, tracker: 0, model: 0, codec: 0 };
// History is encrypted; the Web UI shows plain text only through npm run dev's codec endpoint.
const PAYLOAD_KEY = { TEMPORAL_PAYLOAD_KEY: 'c'.repeat(64) };
const uiErrors: string[] = [];
/**
 * One error of the UI's own script, left out: now and then it measures an element that a page change
 * has already removed (seen once, in a fresh-clone run on 2026-12-01; the same test passed before and
 * after it). It says nothing of what our run or our codec endpoint gave the UI; any other error fails.
 */
const UI_OWN_RACE = /^Failed to execute 'getComputedStyle' on 'Window': parameter 1 is not of type 'Element'\.$/;

beforeAll(async () => {
  for (const name of Object.keys(ports) as Array<keyof typeof ports>) ports[name] = await freePort();
  dev = startChild('clients/dev.ts', [], {
    DEV_DIR: dir,
    DEV_TEMPORAL_PORT: String(ports.temporal),
    DEV_UI_PORT: String(ports.ui),
    DEV_TRACKER_PORT: String(ports.tracker),
    DEV_MODEL_PORT: String(ports.model),
    DEV_CODEC_PORT: String(ports.codec),
    ...PAYLOAD_KEY,
  });
  await dev.waitFor(/then, in another shell/, 60_000);
  await dev.waitFor(/worker serving task queue/, 60_000);
  const executablePath = findChromium();
  if (!executablePath) throw new Error('no Chromium found: apt-get install chromium, or set CHROMIUM');
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await dev?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a client command against the dev system, as a user would in another shell. */
async function cli(script: string, args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', scriptFile(script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...PAYLOAD_KEY, TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}` },
  });
  return stdout;
}

test('npm run dev: a run waiting for approval is found by AgentWaiting in the Web UI, and its page says what it waits for and what each activity did', async () => {
  const workflowId = (
    await cli('start', ['--task', 'Checkout fails with a coupon', '--approve', 'create_issue'])
  ).trim();
  const ui = `http://127.0.0.1:${ports.ui}`;
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  // The UI's only request off this machine is its news feed; any other error is ours.
  page.on(
    'console',
    (m) =>
      m.type() === 'error' &&
      !m.location().url.startsWith('https://newsfeed.temporal.io') &&
      !UI_OWN_RACE.test(m.text()) &&
      uiErrors.push(m.text()),
  );
  page.on('pageerror', (e) => UI_OWN_RACE.test(e.message) || uiErrors.push(e.message));

  // The filter a person would type: every run that waits for an approval.
  const list = `${ui}/namespaces/default/workflows?query=${encodeURIComponent('AgentWaiting="approval"')}`;
  await pageShowing(page, list, [workflowId]);
  await page.screenshot({ path: path.join(dir, 'waiting-runs.png') });

  // The run's user metadata: its task as the summary, how it was started, and what it waits for now.
  // The UI names a run by workflow id and run id; it adds the latest run id when given the workflow id.
  await page.goto(`${ui}/namespaces/default/workflows/${workflowId}`);
  await page.waitForURL(new RegExp(`/workflows/${workflowId}/[0-9a-f-]{36}/`));
  const runPage = page.url().replace(/\/[a-z-]+$/, '');
  const metadata = await pageShowing(page, `${runPage}/user-metadata`, [
    'Checkout fails with a coupon',
    'Needs approval create_issue',
    'Waiting for a person',
    `temporal workflow signal --workflow-id '${workflowId}' --name approve`,
    'call_create_1 create_issue: waiting-approval',
  ]);
  expect(metadata).toContain('Now: turn 1: tool call 1 of 2, create_issue');
  await page.screenshot({ path: path.join(dir, 'current-details.png'), fullPage: true });

  // Approved with the very command the details show (the Temporal CLI's, `by` filled in), as a person
  // would paste it: the calls run, each activity named by its summary, and the details tell how each was settled.
  const shown = /temporal workflow signal --workflow-id .* --name approve --input '[^']*'/.exec(metadata)?.[0];
  expect(shown).toContain('"callId":"call_create_1","approved":true,"by":"YOUR NAME","digest":"sha256:');
  await run('bash', ['-c', shown!.replace('YOUR NAME', 'Ada')], {
    env: {
      ...process.env,
      PATH: `${path.dirname(findTemporalCli()!)}:${process.env.PATH}`,
      TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
    },
  });
  await eventually(async () => (await cli('status', [workflowId])).includes('waiting for approval: call_create_2'));
  await cli('approve', [workflowId, 'call_create_2', '--deny', '--reason', 'one issue is enough']);
  await pageShowing(page, `${runPage}/history`, [
    'model reply, turn 1',
    'create_issue call_create_1, attempt 1',
    'search_issues call_search_1',
  ]);
  const after = await pageShowing(page, `${runPage}/user-metadata`, [
    'finished: the model answered',
    'call_create_1 create_issue: done, 1 attempt(s), settled: ran once',
    'call_create_2 create_issue: denied',
  ]);
  expect(after).not.toContain('Waiting for a person');
  // No run waits any more.
  expect(await cli('status', [])).toBe('no run waits for a person\n');
  // What the UI showed in plain text is sealed in the history: the UI opened it through the codec endpoint.
  const { stdout: raw } = await run(findTemporalCli()!, [
    'workflow',
    'show',
    '--address',
    `127.0.0.1:${ports.temporal}`,
    '-w',
    workflowId,
    '--detailed',
  ]);
  expect(raw).toContain('binary/encrypted');
  expect(raw).not.toContain('Checkout fails with a coupon');
  expect(uiErrors).toEqual([]);
}, 240_000);
