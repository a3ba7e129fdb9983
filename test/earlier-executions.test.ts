// What a reset or retried execution reads of earlier ones, as pure logic over histories: which runs came
// before, the reply an earlier one got to the same conversation, and what it knows of a tool call.
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import {
  earlierCall,
  earlierReplies,
  earlierRunIds,
  hasEarlierExecutions,
  replyFromEarlier,
  type EarlierExecution,
} from '../activities/earlier-executions';
import { sendAgain } from '../activities/tool-call';
import { DAY_MS } from '../workflows/calls';
import type { ChatMessage, ModelReply, ModelRequest, ToolRequest, ToolResponse } from '../workflows/types';

const { ContinueAsNewInitiator, EventType, WorkflowTaskFailedCause } = temporal.api.enums.v1;
type Event = temporal.api.history.v1.IHistoryEvent;

const decode = async (p: temporal.api.common.v1.IPayload) => defaultPayloadConverter.fromPayload(p);
const payloads = (value: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(value)] });

/** Builds a history event by event; activities are numbered by the event that scheduled them. */
function historyOf(build: (h: ReturnType<typeof builder>) => void): Event[] {
  const h = builder();
  build(h);
  return h.events;
}

function builder() {
  const events: Event[] = [];
  const add = (eventType: number, more: Partial<Event> = {}) => {
    const e = { eventId: (events.length + 1) as never, eventType, ...more };
    events.push(e);
    return events.length;
  };
  return {
    events,
    started: (more: temporal.api.history.v1.IWorkflowExecutionStartedEventAttributes = {}) =>
      add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, { workflowExecutionStartedEventAttributes: more }),
    resetFrom: (baseRunId: string) =>
      add(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, {
        workflowTaskFailedEventAttributes: {
          cause: WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW,
          baseRunId,
        },
      }),
    scheduled: (type: string, input: unknown, atSeconds = 0) =>
      add(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, {
        eventTime: { seconds: atSeconds as never, nanos: 500_000_000 },
        activityTaskScheduledEventAttributes: { activityType: { name: type }, input: payloads(input) },
      }),
    completed: (scheduledEventId: number, result: unknown) =>
      add(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, {
        activityTaskCompletedEventAttributes: { scheduledEventId: scheduledEventId as never, result: payloads(result) },
      }),
    failed: (scheduledEventId: number, nonRetryable: boolean) =>
      add(EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED, {
        activityTaskFailedEventAttributes: {
          scheduledEventId: scheduledEventId as never,
          failure: { message: 'failed', applicationFailureInfo: { nonRetryable } },
        },
      }),
  };
}

const task: ChatMessage[] = [
  { role: 'system', content: 'triage' },
  { role: 'user', content: 'checkout fails' },
];
const ask = (messages: ChatMessage[]): ModelRequest => ({ runId: 'r', messages, tools: [] });
const reply = (id: string): ModelReply => ({
  message: {
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name: 'create_issue', arguments: '{}' } }],
  },
  finishReason: 'tool_calls',
});
const toolCall = (callId: string, runId = 'r'): ToolRequest => ({
  runId,
  callId,
  tool: 'create_issue',
  args: {},
  sendKey: false,
});
const response = (output: string): ToolResponse => ({ output, attempt: 1, replayed: false });

describe('which executions came before this one', () => {
  test('a reset execution keeps the original run id and has another; a retry counts its attempt; a first or continued run has none', () => {
    expect(hasEarlierExecutions({ runId: 'b', originalExecutionRunId: 'a', attempt: 1 })).toBe(true);
    expect(hasEarlierExecutions({ runId: 'b', originalExecutionRunId: 'b', attempt: 2 })).toBe(true);
    expect(hasEarlierExecutions({ runId: 'b', originalExecutionRunId: 'b', attempt: 1 })).toBe(false);
  });

  test('read from the history: every run it was reset from, in order, and the run its retry starts over', () => {
    const twiceReset = historyOf((h) => {
      h.started();
      h.resetFrom('run-1');
      h.resetFrom('run-2');
    });
    expect(earlierRunIds(twiceReset)).toEqual(['run-1', 'run-2']);
    const retried = historyOf((h) =>
      h.started({
        initiator: ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_RETRY,
        attempt: 2,
        continuedExecutionRunId: 'run-1',
      }),
    );
    expect(earlierRunIds(retried)).toEqual(['run-1']);
    const continued = historyOf((h) =>
      h.started({
        initiator: ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_WORKFLOW,
        continuedExecutionRunId: 'run-1',
      }),
    );
    expect(earlierRunIds(continued)).toEqual([]);
  });
});

describe('the reply an earlier execution got', () => {
  const turn2 = [...task, reply('call_1').message, { role: 'tool' as const, tool_call_id: 'call_1', content: '{}' }];
  const earlier: EarlierExecution[] = [
    {
      runId: 'run-2',
      events: historyOf((h) => {
        h.completed(h.scheduled('callModel', ask(task)), reply('call_1'));
        h.scheduled('callModel', ask(turn2)); // killed before its reply
      }),
    },
    {
      runId: 'run-1',
      events: historyOf((h) => h.completed(h.scheduled('callModel', ask(task)), reply('call_old'))),
    },
  ];

  test('to exactly the same request, the latest execution first; none to a conversation no earlier execution finished asking', async () => {
    const replies = await earlierReplies(earlier, decode);
    expect(replies.map((r) => r.runId)).toEqual(['run-2', 'run-1']);
    expect(replyFromEarlier(replies, ask(task))).toMatchObject({ runId: 'run-2', reply: reply('call_1') });
    expect(replyFromEarlier(replies, ask(turn2))).toBeUndefined();
    // The same conversation with other tools, or for another model, is another request.
    const otherTools = {
      ...ask(task),
      tools: [{ type: 'function' as const, function: { name: 'x', description: '', parameters: {} } }],
    };
    expect(replyFromEarlier(replies, otherTools)).toBeUndefined();
    expect(replyFromEarlier(replies, { ...ask(task), model: 'other' })).toBeUndefined();
  });

  test("a conversation's keys in another order are the same request", async () => {
    const replies = await earlierReplies(earlier, decode);
    const reordered = task.map((m) => ({ content: m.content, role: m.role }));
    expect(replyFromEarlier(replies, ask(reordered))?.runId).toBe('run-2');
  });
});

describe('what earlier executions know of a tool call', () => {
  test('an attempt that completed gives its response, from whichever execution made it', async () => {
    const earlier: EarlierExecution[] = [
      { runId: 'run-2', events: historyOf((h) => h.scheduled('runTool', toolCall('call_1'))) },
      {
        runId: 'run-1',
        events: historyOf((h) => h.completed(h.scheduled('runTool', toolCall('call_1')), response('{"number":1}'))),
      },
    ];
    expect(await earlierCall(earlier, toolCall('call_1'), decode)).toEqual({
      kind: 'done',
      runId: 'run-1',
      response: response('{"number":1}'),
    });
  });

  test('an attempt sent with no outcome (its worker died, it timed out, it failed retryably) leaves the call unknown, first sent at its earliest attempt', async () => {
    const earlier: EarlierExecution[] = [
      {
        runId: 'run-2',
        events: historyOf((h) => h.scheduled('runTool', toolCall('call_1'), 300)),
      },
      {
        runId: 'run-1',
        events: historyOf((h) => {
          h.failed(h.scheduled('runTool', toolCall('call_1'), 100), false);
          h.scheduled('runTool', toolCall('call_2'), 200);
        }),
      },
    ];
    expect(await earlierCall(earlier, toolCall('call_1'), decode)).toEqual({
      kind: 'unknown',
      runId: 'run-2',
      sentAt: 100_500,
    });
    expect(await earlierCall(earlier, toolCall('call_2'), decode)).toEqual({
      kind: 'unknown',
      runId: 'run-1',
      sentAt: 200_500,
    });
  });

  test('a lookup that found the call makes it done; a refused attempt, another call or another run is nothing', async () => {
    const earlier: EarlierExecution[] = [
      {
        runId: 'run-1',
        events: historyOf((h) => {
          h.scheduled('runTool', toolCall('call_1'));
          h.completed(h.scheduled('lookupCall', toolCall('call_1')), { happened: true, output: '{"number":4}' });
          h.failed(h.scheduled('runTool', toolCall('call_2')), true);
          h.scheduled('runTool', toolCall('call_3', 'another-run'));
        }),
      },
    ];
    expect(await earlierCall(earlier, toolCall('call_1'), decode)).toMatchObject({
      kind: 'done',
      response: { output: '{"number":4}' },
    });
    expect(await earlierCall(earlier, toolCall('call_2'), decode)).toBeUndefined();
    expect(await earlierCall(earlier, toolCall('call_3'), decode)).toBeUndefined();
    expect(await earlierCall(earlier, toolCall('call_9'), decode)).toBeUndefined();
  });
});

describe('a call an earlier execution sent with its outcome unknown', () => {
  const execution = { runId: 'b', originalExecutionRunId: 'a', attempt: 1 };
  test("is sent again only where a repeat is harmless: by the tool's nature, or under a key still held since that send", () => {
    const now = Date.now();
    expect(sendAgain({ execution, harmless: false }, now)).toBe(false);
    expect(sendAgain({ execution, harmless: true }, now - DAY_MS * 7)).toBe(true);
    expect(sendAgain({ execution, harmless: true, keyLeftMs: 60_000 }, now - 1_000)).toBe(true);
    expect(sendAgain({ execution, harmless: true, keyLeftMs: 60_000 }, now - 120_000)).toBe(false);
  });
});
