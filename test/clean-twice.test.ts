// Two clean runs in one worker process, as pure logic: what only the first reaches is a kept
// connection's setup; where the rest differs, the row's points depend on timing. And the JSON-RPC name
// an HTTP point gives a request, so that an MCP session's setup is told from its calls.
import { compareCleanRuns, describeParting } from '../sweep/judge/clean-twice';
import { samePointForEveryRun } from '../sweep/worker/line-protocol';
import { rpcName } from '../sweep/plugin/http-points';

const p = (name: string, detail: string) => ({ name, detail });

describe('two clean runs of a row in one worker process', () => {
  test("what only the first run reaches is setup, wherever it falls among the run's own points", () => {
    const first = [
      p('activity.started', 'openTicket'),
      p('http.accepted', 'POST 127.0.0.1 /mcp initialize'),
      p('http.accepted', 'POST 127.0.0.1 /mcp notifications/initialized'),
      p('http.accepted', 'POST 127.0.0.1 /mcp tools/call open_ticket'),
      p('http.accepted', 'GET 127.0.0.1 /mcp'),
      p('activity.returned', 'openTicket'),
    ];
    const second = [first[0], first[3], first[5]];
    expect(compareCleanRuns(first, second)).toEqual({
      setup: [
        'http.accepted POST 127.0.0.1 /mcp initialize',
        'http.accepted POST 127.0.0.1 /mcp notifications/initialized',
        'http.accepted GET 127.0.0.1 /mcp',
      ],
      parting: null,
    });
  });

  test('runs that reach the same points have no setup; a point reached fewer times at first is not setup but a parting', () => {
    const run = [p('activity.started', 'a'), p('activity.returned', 'a')];
    expect(compareCleanRuns(run, run)).toEqual({ setup: [], parting: null });
    const more = [...run, p('activity.started', 'a'), p('activity.returned', 'a')];
    expect(compareCleanRuns(run, more)).toEqual({
      setup: [],
      parting: { at: 3, first: null, second: p('activity.started', 'a') },
    });
  });

  test('a timer that fires before an activity in one run and after it in the other parts them there, named with the timer', () => {
    const first = [
      p('workflow.decided', 'startTimer'),
      p('activity.started', 'remind'),
      p('activity.returned', 'remind'),
    ];
    const second = [
      p('activity.started', 'remind'),
      p('workflow.decided', 'startTimer'),
      p('activity.returned', 'remind'),
    ];
    const { setup, parting } = compareCleanRuns(first, second);
    expect(setup).toEqual([]);
    expect(parting).toEqual({ at: 1, first: first[0], second: second[0] });
    expect(describeParting('reminder', parting!, ['100 ms'])).toBe(
      'reminder: two clean runs part at point 1, workflow.decided (startTimer) against activity.started (remind); the run starts a timer (100 ms) that its points may race: kills there may land elsewhere',
    );
  });

  test("a run's own ids are written alike before two runs compare", () => {
    const ids = { workflowId: 'wf-1', runId: 'run-1', tag: 'tag-1' };
    expect(samePointForEveryRun(p('tool.started', 'create wf-1 run-1 tag-1'), ids)).toEqual(
      p('tool.started', 'create {workflowId} {runId} {tag}'),
    );
  });
});

describe('the JSON-RPC name of a request body', () => {
  test('an MCP request names its method, and a tool call its tool; a batch names each', () => {
    expect(rpcName('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}')).toBe('initialize');
    expect(rpcName('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"open_ticket"}}')).toBe(
      'tools/call open_ticket',
    );
    expect(
      rpcName(
        '[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]',
      ),
    ).toBe('notifications/initialized,tools/list');
  });

  test('any other body names nothing: plain JSON, a JSON-RPC answer, text, broken JSON', () => {
    for (const body of ['{"ticket":"t-1"}', '{"jsonrpc":"2.0","id":1,"result":{}}', 'hello', '{"jsonrpc":', '[]', ''])
      expect(rpcName(body)).toBe('');
  });
});
