// A person's operations, as pure logic over a history: where a reset goes back to, and what a reset run carried over.
import { temporal } from '@temporalio/proto';
import { defaultPayloadConverter } from '@temporalio/common';
import { describeReset, describeRetry, parseResetTarget, resetEventId, resetsOf, retryOf } from '../common/operations';
import { describeTaken, takenFromEarlier } from '../clients/taken-from-earlier';

const { ContinueAsNewInitiator, EventType, WorkflowTaskFailedCause } = temporal.api.enums.v1;
type Event = temporal.api.history.v1.IHistoryEvent;

let id = 0;
const ev = (eventType: number, more: Partial<Event> = {}): Event => ({ eventId: ++id as never, eventType, ...more });

/** A run that started, decided twice (a model call, then a tool call), and had a signal between. */
function history(): Event[] {
  id = 0;
  return [
    ev(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED),
    ev(EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED),
    ev(EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED),
    ev(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED), // 4
    ev(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED),
    ev(EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED),
    ev(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED),
    ev(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED),
    ev(EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED),
    ev(EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED),
    ev(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED), // 11
  ];
}

describe('where a reset goes back to', () => {
  test('the last or the first completed workflow task, or an event that ends one', () => {
    expect(resetEventId(history(), 'last-task')).toBe(11);
    expect(resetEventId(history(), 'first-task')).toBe(4);
    expect(resetEventId(history(), 11)).toBe(11);
  });

  test('refused with a reason: an event that ends no workflow task, an event the run lacks, a run with no task done', () => {
    expect(() => resetEventId(history(), 7)).toThrow(
      'event 7 is ActivityTaskCompleted: a reset goes back to the end of a workflow task',
    );
    expect(() => resetEventId(history(), 99)).toThrow("the run's history has no event 99 (it has 11)");
    expect(() => resetEventId(history().slice(0, 3), 'last-task')).toThrow(
      'the run has completed no workflow task yet',
    );
    expect(() => parseResetTarget('0')).toThrow('bad reset target "0"');
    expect(parseResetTarget('12')).toBe(12);
  });
});

describe('what a reset run carried over', () => {
  test("read from the reset's failed workflow task: the run it came from, the reason, what came before, what was applied again", () => {
    const before = history().slice(0, 10); // the new run keeps the events before the last task's end
    id = 10;
    const reset = [
      ...before,
      ev(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, {
        workflowTaskFailedEventAttributes: {
          cause: WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW,
          baseRunId: 'run-1',
          newRunId: 'run-2',
          failure: { message: 'a wrong prompt' },
        },
      }),
      ev(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED),
      ev(EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED),
    ];
    const [record] = resetsOf(reset);
    expect(record).toEqual({
      fromRunId: 'run-1',
      atEventId: 11,
      reason: 'a wrong prompt',
      carried: { activities: 1, signals: 1, timers: 0 },
      reapplied: 1,
    });
    expect(describeReset(record)).toBe(
      'reset from run run-1 at event 11 (a wrong prompt): carried 1 completed activity, 1 signal, 0 fired timers; 1 signal applied again',
    );
    expect(resetsOf(history())).toEqual([]);
  });
});

describe('which attempt of a retried run it is', () => {
  test("read from its first event: the attempt, the run it continues and that run's failure; none for a first attempt or a continued run", () => {
    const started = (attrs: temporal.api.history.v1.IWorkflowExecutionStartedEventAttributes) => [
      ev(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, { workflowExecutionStartedEventAttributes: attrs }),
    ];
    const retried = started({
      initiator: ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_RETRY,
      attempt: 2,
      continuedExecutionRunId: 'run-1',
      continuedFailure: { message: 'the tracker was down' },
    });
    expect(retryOf(retried)).toEqual({ attempt: 2, fromRunId: 'run-1', failure: 'the tracker was down' });
    expect(describeRetry(retryOf(retried)!)).toBe(
      'attempt 2, started over by its retry policy after run run-1 failed: the tracker was down; its history carried nothing over',
    );
    expect(retryOf(history())).toBeNull();
    expect(
      retryOf(
        started({
          initiator: ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_WORKFLOW,
          continuedExecutionRunId: 'run-1',
        }),
      ),
    ).toBeNull();
  });
});

describe('what a reset or retried run took from earlier executions', () => {
  test('the model replies and tool responses marked with the run they came from; what it did itself is not listed', async () => {
    id = 0;
    const payloads = (value: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(value)] });
    const scheduled = (type: string, input: unknown) =>
      ev(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, {
        activityTaskScheduledEventAttributes: { activityType: { name: type }, input: payloads(input) },
      });
    const completed = (scheduledEventId: number, result: unknown) =>
      ev(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, {
        activityTaskCompletedEventAttributes: { scheduledEventId: scheduledEventId as never, result: payloads(result) },
      });
    const turn1 = [{ role: 'user' }];
    const turn2 = [{ role: 'user' }, { role: 'assistant' }, { role: 'tool' }];
    const events = [
      scheduled('callModel', { messages: turn1 }), // 1
      completed(1, { message: {}, fromRunId: 'run-1' }),
      scheduled('runTool', { tool: 'create_issue', callId: 'call_create_1' }), // 3
      completed(3, { output: '{}', fromRunId: 'run-1' }),
      scheduled('runTool', { tool: 'create_issue', callId: 'call_create_2' }), // 5
      completed(5, { output: '{}' }),
      scheduled('callModel', { messages: turn2 }), // 7
      completed(7, { message: {} }),
    ];
    const taken = await takenFromEarlier(events, async (p) => defaultPayloadConverter.fromPayload(p));
    expect(taken.map(describeTaken)).toEqual([
      "turn 1: the model's reply taken from run run-1, not asked again",
      'call create_issue call_create_1: its response taken from run run-1, not sent again',
    ]);
  });
});
