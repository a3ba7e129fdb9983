// The triage example's tools (examples/triage/tools.ts), defined on the package's API, against real
// trackers on SQLite: the run's repository and tracker come from its context, the worker's token goes
// to the worker's own tracker only, a key is honoured or looked up by its trace, and the tools report
// their own crash point and what the tracker says of its keys.
import { ToolRegistry } from '../activities/define-tool';
import type { ToolContext } from '../lib/worker';
import { TRIAGE_TOOL_NAMES, triageTools } from '../examples/triage/tools';
import { listeningTracker } from './helpers/tracker';

type Tracker = Awaited<ReturnType<typeof listeningTracker>>;
let own: Tracker;
let other: Tracker;
let keyless: Tracker;
const token = 'worker-tracker-token';

beforeAll(async () => {
  [own, other, keyless] = await Promise.all([
    listeningTracker({ token, keyTtlMs: 3_600_000 }),
    listeningTracker({ token }),
    listeningTracker({ keyless: true }),
  ]);
});
afterAll(async () => {
  for (const t of [own, other, keyless]) await t?.close();
});

/** A call's context as the runTool activity gives it, recording the points and the key retention it is told. */
function call(callId: string, context: Record<string, unknown>) {
  const seen = { points: [] as string[], keptFor: [] as number[] };
  const ctx: ToolContext = {
    key: `key-${callId}`,
    runId: 'r',
    callId,
    attempt: 1,
    signal: new AbortController().signal,
    context,
    point: async (name) => void seen.points.push(name),
    keysKeptFor: (ms) => void seen.keptFor.push(ms),
  };
  return { ctx, seen };
}

const registry = () =>
  new ToolRegistry(triageTools({ trackerUrl: own.url, trackerToken: token, otherTrackers: [other.url, keyless.url] }));
const issue = { title: 'Checkout fails', body: 'with a coupon' };

test('the tools the triage runs name, with the effects the ladder reads', () => {
  const tools = triageTools();
  expect(tools.map((t) => t.name)).toEqual(TRIAGE_TOOL_NAMES);
  expect(tools.map((t) => [t.spec.sendsKey, t.spec.readOnly, t.spec.lookup, t.spec.receiver])).toEqual([
    [true, false, true, 'tracker'],
    [true, false, true, 'tracker'],
    [false, true, false, 'tracker'],
  ]);
});

test("the worker's own tracker gets its token and the key; a tracker the run names gets no token", async () => {
  const tools = registry();
  const first = call('c1', { repo: 'tok' });
  const out = JSON.parse(await tools.run('create_issue', issue, first.ctx)) as { number: number };
  expect(out.number).toBe(1);
  expect(first.seen).toEqual({ points: ['tracker.accepted'], keptFor: [3_600_000] });
  // The same key again: the tracker answers from the key, nothing new is filed.
  expect(JSON.parse(await tools.run('create_issue', issue, call('c1', { repo: 'tok' }).ctx))).toEqual(out);
  expect(own.store.counts('tok')).toEqual({ issues: 1, comments: 0 });
  await expect(
    tools.run('create_issue', issue, call('c2', { repo: 'tok', trackerUrl: other.url }).ctx),
  ).rejects.toThrow(/401/);
  expect(other.store.counts('tok')).toEqual({ issues: 0, comments: 0 });
});

test('a run naming a tracker the worker was not configured for is refused when its tools are listed, and by the tool', async () => {
  const tools = new ToolRegistry(triageTools({ trackerUrl: own.url, trackerToken: token }));
  const elsewhere = { repo: 'tok', trackerUrl: 'http://203.0.113.9:4100' };
  expect(tools.contextProblem(TRIAGE_TOOL_NAMES, elsewhere)).toMatch(
    /^create_issue: context.trackerUrl names http:\/\/203.0.113.9:4100, a tracker this worker was not configured for/,
  );
  expect(tools.contextProblem(TRIAGE_TOOL_NAMES, { repo: 'tok', trackerUrl: `${own.url}/some/path` })).toBeNull();
  expect(tools.contextProblem(TRIAGE_TOOL_NAMES, { repo: 'tok', trackerUrl: 'not a url' })).toMatch(/is not a URL/);
  await expect(tools.run('search_issues', { query: 'x' }, call('c0', elsewhere).ctx)).rejects.toMatchObject({
    type: 'BadContext',
  });
  const any = new ToolRegistry(triageTools({ trackerUrl: own.url, otherTrackers: 'any' }));
  expect(any.contextProblem(TRIAGE_TOOL_NAMES, elsewhere)).toBeNull();
});

test('a context without a repository, or with a tracker that is not a string, is refused and sends nothing', async () => {
  const tools = registry();
  await expect(tools.run('create_issue', issue, call('c3', {}).ctx)).rejects.toMatchObject({
    name: 'ReceiverRefusedError',
    type: 'NoRepo',
  });
  await expect(
    tools.run('search_issues', { query: 'x' }, call('c4', { repo: 'tok', trackerUrl: 7 }).ctx),
  ).rejects.toMatchObject({
    type: 'BadContext',
  });
  await expect(
    new ToolRegistry(triageTools()).run('search_issues', { query: 'x' }, call('c5', { repo: 'tok' }).ctx),
  ).rejects.toMatchObject({ type: 'NoTracker' });
  expect(own.store.counts('tok')).toEqual({ issues: 1, comments: 0 });
});

test('the lookup asks by key where it can, and by the trace line where it cannot', async () => {
  const tools = registry();
  const context = { repo: 'look', trackerUrl: keyless.url };
  await tools.run('create_issue', issue, call('c6', context).ctx);
  const query = (callId: string, byKey: boolean) => ({
    key: `key-${callId}`,
    callId,
    runId: 'r',
    byKey,
    context,
    signal: new AbortController().signal,
  });
  // A keyless tracker keeps no keys: only the search for the trace the call wrote finds it.
  expect(await tools.lookup('create_issue', issue, query('c6', false))).toMatchObject({ happened: true });
  expect(await tools.lookup('create_issue', issue, query('c7', false))).toEqual({ happened: false });
  // On the keyed tracker, by its key.
  const keyed = { repo: 'look', trackerUrl: own.url };
  await tools.run('create_issue', issue, call('c8', keyed).ctx);
  expect(await tools.lookup('create_issue', issue, { ...query('c8', true), context: keyed })).toMatchObject({
    happened: true,
  });
  expect(await tools.lookup('create_issue', issue, { ...query('c9', true), context: keyed })).toEqual({
    happened: false,
  });
});
