// The tracker's tools have one description of their arguments (tracker/tool-specs.ts): the tools'
// check, the MCP server's input schema and the tracker's routes, all made from it, take and refuse the same.
import { z } from 'zod';
import { MAX_KEY_LENGTH } from '../common/key';
import { buildTracker } from '../tracker/app';
import { Store } from '../tracker/store';
import { argsShape, checkArgs, trackerToolSpec } from '../tracker/tool-args';
import { TRACE_ROOM, trackerWriteOf } from '../tracker/tools';

const app = buildTracker({ store: new Store(':memory:') });
afterAll(() => app.close());
/** The longest key a call may carry: its trace line is the longest a write holds. */
const key = 'k'.repeat(MAX_KEY_LENGTH);

/** What each of the three says of a create_issue call's arguments. */
async function verdicts(args: Record<string, unknown>) {
  const spec = trackerToolSpec('create_issue');
  const tool = checkArgs(spec, args).ok;
  const mcp = z.object(argsShape(spec)).safeParse(args).success;
  // The route gets what the tool would send: the body with the longest trace line a call writes.
  const payload = typeof args.body === 'string' ? { ...args, body: args.body + 'x'.repeat(TRACE_ROOM) } : args;
  const res = await app.inject({ method: 'POST', url: '/repos/args/issues', payload });
  return { tool, mcp, route: res.statusCode === 201 };
}

test('what the tool sends for the longest body and key fits the route: the trace line has its room', async () => {
  const write = trackerWriteOf('create_issue', { title: 't', body: 'b'.repeat(65_536) }, { repo: 'args', key });
  const res = await app.inject({ method: 'POST', url: write.path, payload: write.body as object });
  expect(res.statusCode).toBe(201);
});

test.each([
  ['a plain issue', { title: 'Checkout fails', body: 'Steps: ...' }, true],
  ['the longest title and body, with the longest key', { title: 't'.repeat(256), body: 'b'.repeat(65_536) }, true],
  ['twenty labels', { title: 't', body: 'b', labels: Array.from({ length: 20 }, (_, i) => `l${i}`) }, true],
  ['an empty title', { title: '', body: 'b' }, false],
  ['a title one past the limit', { title: 't'.repeat(257), body: 'b' }, false],
  ['a body one past the limit', { title: 't', body: 'b'.repeat(65_537) }, false],
  ['no body', { title: 't' }, false],
  ['a label that is no string', { title: 't', body: 'b', labels: [7] }, false],
  ['twenty-one labels', { title: 't', body: 'b', labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }, false],
])('%s: the tool, the MCP schema and the route agree', async (_, args, taken) => {
  expect(await verdicts(args)).toEqual({ tool: taken, mcp: taken, route: taken });
});

test('a refusal names the argument: a model can read what to change', () => {
  expect(checkArgs(trackerToolSpec('comment_on_issue'), { number: 0, body: 'x' })).toEqual({
    ok: false,
    why: expect.stringMatching(/^argument number: /),
  });
  expect(() => trackerWriteOf('create_issue', { title: '' }, { repo: 'r', key: 'k' })).toThrow(
    /^create_issue: argument title: /,
  );
});
