// The agent's rows of the table: which design, which tracker, which faults, which person.
import type { Duration } from '@temporalio/common';
import type { Design } from './designs';
import type { ExpectedEffect } from './effects';
import type { PersonMode } from './person';
import type { RunTimeouts } from '../workflows/types';
import { MCP_SERVER_NAMES } from './mcp-host';
import type { SuiteRow } from '../sweep/engine/suite';
import { pickRows } from '../sweep/engine/planning';
import { commaList } from '../common/cli';
import {
  activityOperation,
  cancel,
  partition,
  receiverDies,
  reset as resetRun,
  retry,
  serverDies as serverDiesFault,
  slowReceiver,
  terminate,
  throwAtPoint,
  type ActivityOperation,
  type Lost,
  type ServerDeath,
} from '../sweep/faults';
import type { TrackerName, TrackerPoint } from './world';
import { SERVER_DIES_WORKFLOW_TASK_TIMEOUT } from '../sweep/engine/timeouts';
import { TRIAGE_TOOL_NAMES } from '../examples/triage/tools';
import { LONG_TASK, type FickleIds } from '../model/script';
import { SERVER_DIES_TIMEOUTS, SWEEP_MCP_TIMEOUTS } from './timeouts';

/** What every run of a variant gets from the sweep. */
export interface RunBase {
  runId: string;
  repo: string;
  task: string;
  /** The system prompt of the agent loop's rows (the design rows have their own). */
  instructions: string;
  trackerUrl: string;
  timeouts: RunTimeouts;
}

/**
 * A run of the agent loop on the triage example's tools (`examples/triage/tools.ts`), registered on
 * the sweep's worker as any user's tools are: named in `tools`, the repository and tracker in
 * `context`, which the model never sees.
 */
export function triageRun({ repo, trackerUrl, ...rest }: RunBase) {
  return { ...rest, tools: TRIAGE_TOOL_NAMES, context: { repo, trackerUrl } };
}

/**
 * A run of the agent loop on the tracker's MCP server (`mcp`, the lane's server for the row's tracker):
 * its tools take the repository as an argument, which the run fills in from its context.
 */
function mcpRun({ repo, trackerUrl: _tracker, ...rest }: RunBase, server: string) {
  return { ...rest, mcpServers: [server], context: { repo }, timeouts: SWEEP_MCP_TIMEOUTS };
}

/** One row of the agent suite's table: a loop, its tracker, and what the scripted world does to it. */
export interface AgentRow extends SuiteRow {
  workflowType: 'agentWorkflow' | 'designWorkflow';
  /** Which of the world's trackers it writes to (keyed or keyless; slow or not). */
  tracker: TrackerName;
  input(base: RunBase): unknown;
  /** How the scripted person answers (see {@link PersonMode}). Default `truthful`. */
  person?: PersonMode;
  /**
   * The writes a run should leave: a list, or `history` (the writes of the replies its history holds,
   * for a model that changes its mind). Default the triage script's (`TRIAGE_EFFECTS`).
   */
  expects?: readonly ExpectedEffect[] | 'history';
  /**
   * The model is fickle: asked a conversation again, it answers with other calls, under new ids
   * (`new-ids`) or under the ids it used before (`same-ids`: a model that numbers its calls). Default:
   * the same reply.
   */
  fickle?: FickleIds;
  /** The workflow-task timeout of its runs. Default the sweep's (`SWEEP_WORKFLOW_TASK_TIMEOUT`). */
  workflowTaskTimeout?: Duration;
}

const design = (name: Design, label: string, tracker: AgentRow['tracker']): AgentRow => ({
  name,
  label,
  workflowType: 'designWorkflow',
  tracker,
  input: (base) => ({ ...base, design: name }),
});

/** The group of rows where a person answers wrong, or denies. */
export const PERSON_GROUP = 'the person answers wrong';
/** The group of rows whose model, asked the same conversation again, answers with other calls. */
export const MODEL_GROUP = 'the model changes its mind';

/** The group of rows whose tracker process is killed mid-request. */
export const TRACKER_GROUP = 'the tracker dies';

/**
 * A row of {@link TRACKER_GROUP}: the agent loop against a tracker process killed once per write at
 * `point`. Its tool calls have a long timeout and a heartbeat, as over MCP: a write held at the tracker
 * until the harness kills it must not time out in a live worker meanwhile.
 */
const trackerDies = (name: string, label: string, kind: 'keyed' | 'keyless', point: TrackerPoint): AgentRow => ({
  name,
  label,
  workflowType: 'agentWorkflow',
  tracker: kind,
  input: (base) => ({
    ...triageRun(base),
    ...(kind === 'keyless' ? { keyless: true, lookup: true } : {}),
    timeouts: SWEEP_MCP_TIMEOUTS,
  }),
  faults: [receiverDies({ receiver: 'tracker', at: point })],
  group: TRACKER_GROUP,
});

/** The group of rows whose Temporal server is killed at each point. */
export const SERVER_GROUP = 'the Temporal server dies';

/**
 * A row of {@link SERVER_GROUP}: the keyed agent loop on a dev server of its own (on a database file),
 * SIGKILLed at each point and started again on the same file and port. With the worker alive, the runs'
 * timeouts are long (nothing may time out while a batch parks); with the worker killed too, the sweep's
 * short ones hand the dead worker's tasks to the fresh worker.
 */
const serverDies = (name: string, label: string, worker: ServerDeath): AgentRow => ({
  name,
  label,
  workflowType: 'agentWorkflow',
  tracker: 'keyed',
  input: (base) =>
    worker === 'worker-survives' ? { ...triageRun(base), timeouts: SERVER_DIES_TIMEOUTS } : triageRun(base),
  ...(worker === 'worker-survives' ? { workflowTaskTimeout: SERVER_DIES_WORKFLOW_TASK_TIMEOUT } : {}),
  faults: [serverDiesFault(worker)],
  group: SERVER_GROUP,
});

/** The group of rows whose tracker holds each first write past the tool's timeout before it commits. */
export const SLOW_GROUP = 'the receiver is slower than the timeout';

/**
 * A row of {@link SLOW_GROUP}: the agent loop against one of the slow trackers. The tool activity times
 * out in a live worker while its request is held (the audit accepts that for `runTool` only).
 */
const slow = (name: string, label: string, tracker: TrackerName, keyless: boolean, damaged = false): AgentRow => ({
  name,
  label,
  workflowType: 'agentWorkflow',
  tracker,
  input: (base) => (keyless ? { ...triageRun(base), keyless: true, lookup: true } : triageRun(base)),
  group: SLOW_GROUP,
  faults: [slowReceiver({ activities: ['runTool'], damagedWithoutKills: damaged, firstPassOnly: true })],
});

/** The group of rows whose tracker is behind a network partition that loses a request or its reply. */
export const PARTITION_GROUP = 'the network loses a request or its reply';

/**
 * A row of {@link PARTITION_GROUP}: each run's first write is lost on its way to the tracker, or its
 * reply on the way back, until the run comes back (`faults/partition.ts`). The tool activity times out
 * in a live worker meanwhile; `damaged`: the row shows damage with no kill at all.
 */
const partitioned = (v: AgentRow, lost: Lost, damaged = false): AgentRow => ({
  ...v,
  name: `${v.name}-${lost}-lost`,
  label: `${v.label}: ${lost} lost`,
  faults: [partition({ lost, activities: ['runTool'], damagedWithoutKills: damaged })],
  group: PARTITION_GROUP,
});

/**
 * A row of {@link MODEL_GROUP}: a fickle model, its writes counted against the replies in history;
 * `same-ids`: it changes its mind under the call ids it used before.
 */
const fickle = (v: AgentRow, name: string, label: string, ids: FickleIds = 'new-ids'): AgentRow => ({
  ...v,
  name,
  label,
  fickle: ids,
  expects: 'history',
  group: MODEL_GROUP,
});

/** The group of rows where a person resets the run at each point, once its worker is dead. */
export const RESET_GROUP = 'a person resets the run';

/**
 * A row of {@link RESET_GROUP}: the run is reset at each point to its last workflow task, or to its
 * first (it starts over from its input and asks the model again); `fickle`: a model that answers a
 * conversation asked again with other calls, its writes counted against the replies in history
 * (`same-ids`: under the call ids it used before).
 */
const reset = (v: AgentRow, to: 'last' | 'first', fickleModel: boolean | 'same-ids' = false): AgentRow => ({
  ...v,
  name: `${v.name}-reset-${to}${fickleModel ? '-fickle' : ''}${fickleModel === 'same-ids' ? '-same-ids' : ''}`,
  label: `${v.label}: ${fickleModel ? 'fickle, ' : ''}${fickleModel === 'same-ids' ? 'same ids, ' : ''}reset to ${to}`,
  faults: [resetRun(to === 'last' ? 'last-task' : 'first-task')],
  ...(fickleModel
    ? {
        fickle: fickleModel === 'same-ids' ? ('same-ids' as const) : ('new-ids' as const),
        expects: 'history' as const,
      }
    : {}),
  group: RESET_GROUP,
});

/** The group of rows whose run fails at each point, once its worker is dead, and is retried by its policy. */
export const RETRY_GROUP = 'the run fails and its retry policy starts it over';

/**
 * A row of {@link RETRY_GROUP}: the run has a retry policy (the agent's runs have none by default) and
 * fails at each point; Temporal starts it over with the same input, under the same workflow id, and it
 * asks the model again. `fickle`: a model that answers a conversation asked again with other calls.
 */
const retried = (v: AgentRow, fickleModel = false): AgentRow => ({
  ...v,
  name: `${v.name}-retried${fickleModel ? '-fickle' : ''}`,
  label: `${v.label}: ${fickleModel ? 'fickle, ' : ''}run retried`,
  faults: [retry],
  ...(fickleModel ? { fickle: 'new-ids' as const, expects: 'history' as const } : {}),
  group: RETRY_GROUP,
});

/**
 * The loop blind to earlier executions (`earlierExecutions: false`): after a reset to the first task
 * or a retry it asks the model again and sends every call again, as the loop did before it read
 * them. Its rows show the damage the loop's reading prevents.
 */
const blind = (v: AgentRow): AgentRow => ({
  ...v,
  name: `${v.name}-blind`,
  label: `${v.label}, blind`,
  input: (base) => ({ ...(v.input(base) as object), earlierExecutions: false }),
});

/** The group of rows where a person stops the run at each point, once its worker is dead. */
export const STOP_GROUP = 'a person cancels or terminates the run';

/**
 * A row of {@link STOP_GROUP}: the run is cancelled (`npm run cancel`) or terminated at each point, and
 * counted against the replies its history holds: what it never got to is half done. Nothing runs
 * after the stop, so nothing is killed twice.
 */
const stopped = (v: AgentRow, kind: 'cancel' | 'terminate'): AgentRow => ({
  ...v,
  name: `${v.name}-${kind === 'cancel' ? 'cancelled' : 'terminated'}`,
  label: `${v.label}: ${kind === 'cancel' ? 'cancelled' : 'terminated'}`,
  faults: [kind === 'cancel' ? cancel : terminate],
  group: STOP_GROUP,
});

/** The group of rows where an operator pauses or resets a tool call stuck at its receiver. */
export const OPERATOR_GROUP = 'an operator pauses or resets a stuck call';

/**
 * A row of {@link OPERATOR_GROUP}: each run's first write is acted on by the tracker and its reply
 * lost (`faults/partition.ts`); the call hangs, and an operator pauses it and unpauses it, or resets
 * it (`faults/activity-operation.ts`). Its tool calls heartbeat (a long timeout, as over MCP): the
 * operation reaches the running attempt at its next heartbeat, and no timeout ends the call first.
 * `damaged`: the row shows damage with no kill at all.
 */
const operated = (v: AgentRow, operation: ActivityOperation, damaged = false): AgentRow => ({
  ...v,
  name: `${v.name}-activity-${operation}`,
  label: `${v.label}: stuck call ${{ pause: 'paused', reset: 'reset', options: 'timeout shortened' }[operation]}`,
  input: (base) => ({ ...(v.input(base) as object), timeouts: SWEEP_MCP_TIMEOUTS }),
  faults: [
    partition({ lost: 'reply', activities: ['runTool'] }),
    activityOperation({ operation, damagedWithoutKills: damaged }),
  ],
  group: OPERATOR_GROUP,
});

/** The agent loop on the keyless tracker, asking it whether a call happened. */
const AGENT_KEYLESS_LOOKUP: AgentRow = {
  name: 'agent-keyless-lookup',
  label: 'agent loop, keyless + lookup',
  workflowType: 'agentWorkflow',
  tracker: 'keyless',
  input: (base) => ({ ...triageRun(base), keyless: true, lookup: true }),
};

/**
 * A control (`SuiteRow.control`): a row known to do damage under its faults, which must show some, or
 * the sweep fails (`judge/controls.ts`). Each group that shows damage has one or more: its naive rows.
 */
const control = (v: AgentRow): AgentRow => ({ ...v, control: true });

/** The agent loop on the keyless tracker with no lookup: a person settles what it cannot repeat. */
const AGENT_KEYLESS: AgentRow = {
  name: 'agent-keyless',
  label: 'agent loop, keyless, no lookup',
  workflowType: 'agentWorkflow',
  tracker: 'keyless',
  input: (base) => ({ ...triageRun(base), keyless: true, lookup: false }),
};

/** The agent loop with an approval gate on its issues: a person approves each before it is filed. */
const AGENT_APPROVAL: AgentRow = {
  name: 'agent-approval',
  label: 'agent loop, approval gate',
  workflowType: 'agentWorkflow',
  tracker: 'keyed',
  input: (base) => ({ ...triageRun(base), approve: ['create_issue'] }),
};

/** The agent loop on the keyed tracker: the row the others vary. */
const AGENT_KEYED: AgentRow = {
  name: 'agent',
  label: 'agent loop, keyed tracker',
  workflowType: 'agentWorkflow',
  tracker: 'keyed',
  input: triageRun,
};

/** The keyed loop, named as the rows that vary it name it (`agent loop, keyed: ...`). */
const keyedLoop: AgentRow = { ...AGENT_KEYED, label: 'agent loop, keyed' };

/** Every variant, in table order: the five designs, then the agent loop and its harder cases. */
export const AGENT_ROWS: readonly AgentRow[] = [
  control(design('turn', 'save once per turn', 'keyless')),
  design('reply', 'save after the reply', 'keyless'),
  design('keys', '+ idempotency keys', 'keyed'),
  design('markers', '+ attempt markers, no keys', 'keyless'),
  design('keys-markers', 'keys and markers', 'keyed'),
  AGENT_KEYED,
  AGENT_KEYLESS_LOOKUP,
  AGENT_KEYLESS,
  {
    name: 'agent-mid-call',
    label: 'agent loop, tool dies mid-call',
    workflowType: 'agentWorkflow',
    tracker: 'keyed',
    input: triageRun,
    faults: [throwAtPoint('tracker.accepted')],
  },
  {
    name: 'agent-mcp',
    label: 'agent loop, MCP server killed mid-call',
    workflowType: 'agentWorkflow',
    tracker: 'keyed',
    input: (base) => mcpRun(base, MCP_SERVER_NAMES.keyed),
    faults: [receiverDies({ receiver: 'mcp' })],
  },
  {
    name: 'agent-mcp-keyless-lookup',
    label: 'agent loop, MCP killed, keyless + lookup',
    workflowType: 'agentWorkflow',
    tracker: 'keyless',
    input: (base) => ({ ...mcpRun(base, MCP_SERVER_NAMES.keyless), keyless: true, lookup: true }),
    faults: [receiverDies({ receiver: 'mcp' })],
  },
  AGENT_APPROVAL,
  // Six turns whose issues carry 20 KB of logs, continued as new every two: large outputs, replies and
  // inputs in the payload store, the conversation by reference across continue-as-new.
  {
    name: 'agent-long',
    label: 'agent loop, keyed: long run, large outputs',
    workflowType: 'agentWorkflow',
    tracker: 'keyed',
    input: (base) => ({ ...triageRun({ ...base, task: LONG_TASK }), turnsPerRun: 2, maxTurns: 8 }),
  },
  // The tracker process dies mid-request, before or after it commits a write, and is started again on
  // its database file and port: the ladder settles the write the dead tracker never answered.
  trackerDies('agent-tracker-received', 'agent loop, keyed: tracker dies on receipt', 'keyed', 'received'),
  trackerDies('agent-tracker-committed', 'agent loop, keyed: tracker dies after commit', 'keyed', 'committed'),
  trackerDies(
    'agent-keyless-tracker-received',
    'agent loop, keyless + lookup: tracker dies on receipt',
    'keyless',
    'received',
  ),
  trackerDies(
    'agent-keyless-tracker-committed',
    'agent loop, keyless + lookup: tracker dies after commit',
    'keyless',
    'committed',
  ),
  // The Temporal server dies at each point and comes back on its database file: the surviving worker
  // finishes the run, or a fresh worker does (the worker died with the server).
  serverDies('agent-server', 'agent loop, keyed: server dies, worker lives', 'worker-survives'),
  serverDies('agent-server-worker', 'agent loop, keyed: server and worker die', 'worker-dies'),
  // A receiver slower than the tool's timeout: the damage of a tracker that does not claim a key in
  // flight, and of a lookup that trusts "not found" while the first request may still commit; then each fixed.
  control(
    slow('agent-slow-unclaimed', 'agent loop, keyed: key not claimed in flight', 'slowKeyedUnclaimed', false, true),
  ),
  slow('agent-slow', 'agent loop, keyed: 409 while the key is in flight', 'slowKeyed', false),
  control(
    slow(
      'agent-slow-keyless-silent',
      'agent loop, keyless + lookup: no commit deadline',
      'slowKeylessSilent',
      true,
      true,
    ),
  ),
  slow('agent-slow-keyless', 'agent loop, keyless + lookup: waits out the deadline', 'slowKeyless', true),
  // The network loses a run's first write or its reply, and the caller cannot tell which: a loop that
  // repeats the write without a key makes it twice; the loop with keys repeats it harmlessly; without
  // keys, a lookup settles it, and without a lookup a person is asked.
  control(partitioned(design('reply', 'save after the reply', 'keyless'), 'reply', true)),
  partitioned(keyedLoop, 'reply'),
  partitioned(AGENT_KEYLESS_LOOKUP, 'reply'),
  control(partitioned(AGENT_KEYLESS, 'request', true)),
  partitioned(AGENT_KEYLESS_LOOKUP, 'request'),
  // A person who answers "did it happen?" wrongly: harm where a person is asked (markers without keys,
  // the keyless loop without lookup), none where keys leave nobody to ask.
  control({
    ...design('markers', 'markers, no keys: every answer wrong', 'keyless'),
    name: 'markers-wrong',
    person: 'wrong',
    group: PERSON_GROUP,
  }),
  {
    ...design('keys-markers', 'keys and markers: every answer wrong', 'keyed'),
    name: 'keys-markers-wrong',
    person: 'wrong',
    group: PERSON_GROUP,
  },
  {
    name: 'agent-keyless-wrong',
    label: 'agent loop, keyless, no lookup: every answer wrong',
    workflowType: 'agentWorkflow',
    tracker: 'keyless',
    input: (base) => ({ ...triageRun(base), keyless: true, lookup: false }),
    person: 'wrong',
    group: PERSON_GROUP,
  },
  {
    name: 'agent-wrong',
    label: 'agent loop, keyed: every answer wrong',
    workflowType: 'agentWorkflow',
    tracker: 'keyed',
    input: triageRun,
    person: 'wrong',
    group: PERSON_GROUP,
  },
  // A person who denies both issues: the model is told, makes no comment on an issue that does not
  // exist, and the tracker must stay empty.
  {
    name: 'agent-approval-denied',
    label: 'agent loop, approval gate: every call denied',
    workflowType: 'agentWorkflow',
    tracker: 'keyed',
    input: (base) => ({ ...triageRun(base), approve: ['create_issue'] }),
    person: 'denies',
    expects: [],
    group: PERSON_GROUP,
  },
  // A model that answers a repeated conversation with other calls: a repeated turn leaves writes no
  // reply in history accounts for (orphans); the loop that saves the reply before any tool runs never does.
  control(fickle(design('turn', '', 'keyless'), 'turn-fickle', 'save once per turn: model changes its mind')),
  fickle(design('reply', '', 'keyless'), 'reply-fickle', 'save after the reply: model changes its mind'),
  fickle(AGENT_KEYED, 'agent-fickle', 'agent loop, keyed: model changes its mind'),
  // A model that changes its mind under the ids it used before: the repeated turn makes the same call
  // again with other arguments, under the same key (diverged); saving the reply first, it never does.
  control(
    fickle(
      design('turn', '', 'keyless'),
      'turn-fickle-same-ids',
      'save once per turn: mind changed, same ids',
      'same-ids',
    ),
  ),
  fickle(
    design('reply', '', 'keyless'),
    'reply-fickle-same-ids',
    'save after the reply: mind changed, same ids',
    'same-ids',
  ),
  fickle(AGENT_KEYED, 'agent-fickle-same-ids', 'agent loop, keyed: mind changed, same ids', 'same-ids'),
  // A reset to the last task runs that task again from the history it keeps, the model's reply
  // included; a reset to the first throws the reply away. Blind to earlier executions, the loop asks
  // the model again and sends every call again: a model that changes its mind orphans what the run
  // did, and a receiver without keys gets it twice. Reading them, it takes the earlier reply and
  // the earlier calls' outcomes.
  control(reset(blind(keyedLoop), 'first', true)),
  control(reset(blind(AGENT_KEYLESS_LOOKUP), 'first')),
  reset(keyedLoop, 'last'),
  reset(keyedLoop, 'first'),
  reset(keyedLoop, 'last', true),
  reset(keyedLoop, 'first', true),
  reset(AGENT_KEYLESS_LOOKUP, 'first'),
  reset(AGENT_KEYLESS_LOOKUP, 'first', true),
  reset(design('reply', 'save after the reply', 'keyless'), 'first'),
  reset(design('reply', 'save after the reply', 'keyless'), 'first', true),
  // The same, with a model that changes its mind under the ids it used before: without keys the call is
  // made again with other arguments (diverged); the keyed tracker refuses a key reused for other
  // arguments, and the blind loop asks a person; reading its earlier executions, the loop never asks.
  control(reset(design('reply', 'save after the reply', 'keyless'), 'first', 'same-ids')),
  reset(blind(keyedLoop), 'first', 'same-ids'),
  reset(keyedLoop, 'first', 'same-ids'),
  // A reset reapplies the run's signals after its point, its approvals among them: the blind loop, asking
  // the model again, meets an old approval under the same call id with other arguments. The gate
  // refuses it (it names other arguments' digest), the call waits, and the person is asked again.
  {
    ...reset(blind(AGENT_APPROVAL), 'first', 'same-ids'),
    label: 'approval gate, blind: fickle, same ids, reset to first',
  },
  control(retried(blind(keyedLoop), true)),
  control(retried(blind(AGENT_KEYLESS_LOOKUP))),
  retried(keyedLoop),
  retried(keyedLoop, true),
  retried(AGENT_KEYLESS_LOOKUP),
  retried(AGENT_KEYLESS_LOOKUP, true),
  retried(design('reply', 'save after the reply', 'keyless')),
  retried(design('reply', 'save after the reply', 'keyless'), true),
  stopped(keyedLoop, 'cancel'),
  stopped(keyedLoop, 'terminate'),
  stopped(AGENT_KEYLESS_LOOKUP, 'cancel'),
  stopped(AGENT_KEYLESS_LOOKUP, 'terminate'),
  stopped(design('reply', 'save after the reply', 'keyless'), 'cancel'),
  stopped(design('reply', 'save after the reply', 'keyless'), 'terminate'),
  // A call stuck at its receiver (the tracker acted, its reply is lost), paused and unpaused by an
  // operator: the server starts the call again though it was allowed one try, and the workflow never
  // sees an unknown outcome. Reset instead, the call fails and the ladder settles it.
  control(operated(design('reply', 'save after the reply', 'keyless'), 'pause', true)),
  operated(AGENT_KEYLESS_LOOKUP, 'pause'),
  operated(keyedLoop, 'pause'),
  operated(AGENT_KEYLESS, 'pause', true),
  operated(AGENT_KEYLESS_LOOKUP, 'reset'),
  operated(AGENT_KEYLESS, 'reset', true),
  // Its timeout shortened instead, the stuck call times out as any call does: retried without a key
  // by the design that saves after the reply (twice), settled by the loop's ladder (once).
  operated(design('reply', 'save after the reply', 'keyless'), 'options', true),
  operated(AGENT_KEYLESS_LOOKUP, 'options'),
];

/** The variants named in a comma-separated list (by name or by title: `pickRows`), or all of them. */
export function selectRows(names?: string): AgentRow[] {
  return pickRows(AGENT_ROWS, commaList(names));
}
