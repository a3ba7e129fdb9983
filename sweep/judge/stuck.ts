// A run that can never finish: after its last restart it keeps retrying an activity that fails the
// same way, or it waits with nothing in flight that could wake it.
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { eventTypeName } from '../../common/history-events';

/**
 * The attempts after which an activity that keeps failing, with no kill left to come, makes its run
 * stuck. A kill costs an activity one or two attempts; with the sweep's retry waits (100 ms, at most
 * 1 s apart) ten take about 7 s.
 */
export const STUCK_AFTER_ATTEMPTS = 10;

/**
 * The attempts after which a workflow task that keeps failing makes its run stuck. A kill costs a
 * workflow task an attempt (it times out), and a run parked in workflow code has its task time out
 * again and again while its batch parks: so only a new build's runs are looked at for this (a run past
 * its last restart in a batch of the `new-build` fault); a task whose code cannot replay its history
 * (non-determinism: a new build's careless change) fails at every attempt, and after its first
 * failure the SDK lets each attempt time out instead of failing it again, so the history shows the
 * first failure, or none if the first attempt was a kill's timeout.
 */
export const STUCK_AFTER_TASK_ATTEMPTS = 5;

/**
 * How long a run must have waited with nothing in flight (no activity, timer, child or workflow task)
 * before it is stuck: its last restart is long over, and the sweep's person answers at once.
 */
export const STUCK_AFTER_QUIET_MS = 10_000;

/**
 * Why a run is stuck: the activity that keeps failing, how often it has tried, and its last failure;
 * or, `waiting`, that it waits for a signal with nothing in flight, and since which event.
 */
export type Stuck =
  | { kind: 'failing'; activity: string; attempt: number; failure: string }
  | { kind: 'task-failing'; attempt: number; cause?: string; failure?: string; where?: string }
  | { kind: 'waiting'; quietSeconds: number; lastEvent: string };

/** One line for people: `activity charge keeps failing (attempt 10): 400 Invalid status transition`. */
export function describeStuck(s: Stuck): string {
  if (s.kind === 'task-failing')
    return s.cause
      ? `its workflow task keeps failing (attempt ${s.attempt}, ${s.cause}): ${s.failure}${s.where ? ` (at ${s.where})` : ''}${
          /^ReferenceError: /.test(s.failure ?? '')
            ? ": the workflow sandbox has no such global; a module that needs one may need a worker plugin that brings it (the config's plugins)"
            : ''
        }`
      : `its workflow task keeps failing (attempt ${s.attempt}): the worker lets each attempt time out, as it does after a failure it met before (non-determinism, most often)`;
  if (s.kind === 'waiting')
    return `waits with nothing in flight (no activity, timer, child or workflow task), ${STUCK_AFTER_QUIET_MS / 1000} s and more after its last event (${s.lastEvent}): only a signal could wake it, and none came`;
  return `activity ${s.activity} keeps failing (attempt ${s.attempt}): ${s.failure}`;
}

/**
 * What the engine saw of each run that had nothing in flight: its history's length, since when it
 * has had that length (the engine's clock), and whether its history was read at that length (and
 * showed an open timer). A history is read at most once per length, and only after the run has been
 * quiet for {@link STUCK_AFTER_QUIET_MS}, so runs that wait on timers cost the server nothing more.
 */
export type QuietRuns = Map<string, { length: number; since: number; read: boolean }>;

/**
 * Whether a run that should have finished is stuck. Read from the server alone:
 * - an activity of it is pending at its {@link STUCK_AFTER_ATTEMPTS}th attempt or later, its last
 *   attempt failed (not timed out: a timeout is what a kill leaves), and a retry will fail the same way;
 * - or nothing of it is in flight (no pending activity, child, Nexus operation or workflow task, and no
 *   timer its history started and did not fire or cancel), and its history has not grown for
 *   {@link STUCK_AFTER_QUIET_MS}: it waits for a signal that nothing in the sweep will send. Not
 *   looked for without `quiet` (`null`: a suite whose runs wait only for the sweep's own person).
 */
export async function findStuck(
  client: Client,
  workflowId: string,
  quiet: QuietRuns | null = new Map(),
  now = Date.now(),
  /** Look for a workflow task that keeps failing: only for a new build's runs (a parked run's task times out again and again). */
  tasks = false,
): Promise<Stuck | null> {
  const handle = client.workflow.getHandle(workflowId);
  let raw;
  try {
    ({ raw } = await handle.describe());
  } catch {
    return null; // it ended meanwhile, or the server did not answer: asked again on the next round
  }
  for (const a of raw.pendingActivities ?? []) {
    const failure = a.lastFailure;
    if ((a.attempt ?? 0) >= STUCK_AFTER_ATTEMPTS && failure && !failure.timeoutFailureInfo)
      return {
        kind: 'failing',
        activity: a.activityType?.name ?? '?',
        attempt: a.attempt!,
        failure: failure.message ?? '',
      };
  }
  const task = raw.pendingWorkflowTask;
  if (tasks && (task?.attempt ?? 0) >= STUCK_AFTER_TASK_ATTEMPTS) {
    const failed = await lastTaskFailure(client, workflowId);
    return { kind: 'task-failing', attempt: task!.attempt!, ...failed };
  }
  if (!quiet) return null;
  const inFlight =
    (raw.pendingActivities?.length ?? 0) > 0 ||
    (raw.pendingChildren?.length ?? 0) > 0 ||
    (raw.pendingNexusOperations?.length ?? 0) > 0 ||
    !!raw.pendingWorkflowTask ||
    raw.workflowExecutionInfo?.status !==
      temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
  if (inFlight) {
    quiet.delete(workflowId);
    return null;
  }
  const length = Number(raw.workflowExecutionInfo?.historyLength ?? 0);
  const seen = quiet.get(workflowId);
  if (!seen || seen.length !== length) {
    quiet.set(workflowId, { length, since: now, read: false });
    return null;
  }
  if (seen.read || now - seen.since < STUCK_AFTER_QUIET_MS) return null;
  seen.read = true;
  let events;
  try {
    events = (await handle.fetchHistory()).events ?? [];
  } catch {
    seen.read = false;
    return null;
  }
  const timers = new Set<string>();
  for (const e of events) {
    if (e.timerStartedEventAttributes) timers.add(e.timerStartedEventAttributes.timerId ?? '');
    timers.delete(e.timerFiredEventAttributes?.timerId ?? e.timerCanceledEventAttributes?.timerId ?? '\0');
  }
  const last = events[events.length - 1];
  if (timers.size > 0 || !last || events.length !== length) return null; // a timer will wake it, or it moved
  return {
    kind: 'waiting',
    quietSeconds: Math.floor((now - seen.since) / 1000),
    lastEvent: eventTypeName(last.eventType),
  };
}

/**
 * The last failed workflow task in a run's history: its cause (`non-determinism` for
 * `NON_DETERMINISTIC_ERROR`, or the cause's name) and its failure's first line; `null` if none.
 */
async function lastTaskFailure(
  client: Client,
  workflowId: string,
): Promise<{ cause: string; failure: string; where?: string } | null> {
  let events;
  try {
    events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  } catch {
    return null;
  }
  const failed = [...events]
    .reverse()
    .find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes;
  if (!failed) return null;
  const Cause = temporal.api.enums.v1.WorkflowTaskFailedCause;
  const cause =
    failed.cause === Cause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR
      ? 'non-determinism'
      : (Cause[failed.cause ?? 0] ?? 'unknown').replace(/^WORKFLOW_TASK_FAILED_CAUSE_/, '').toLowerCase();
  const where = codeLine(failed.failure?.stackTrace ?? '');
  const message = (failed.failure?.message ?? '').split('\n')[0];
  // The error's name: the failure's type, or the stack's first line (`ReferenceError: ...`).
  const stackName = /^(\w+): /m.exec(failed.failure?.stackTrace ?? '')?.[1];
  const type = failed.failure?.applicationFailureInfo?.type || stackName;
  return {
    cause,
    failure: type && !message.startsWith(type) ? `${type}: ${message}` : message,
    ...(where ? { where } : {}),
  };
}

/**
 * The first frame of a failure's stack in the user's own code, as `file:line:column`: not the SDK's,
 * not a package's (`node_modules`), not the bundler's runtime; `undefined` if there is none.
 */
export function codeLine(stack: string): string | undefined {
  for (const line of stack.split('\n')) {
    const frame = /^\s*at (?:.*? \()?(.+?:\d+:\d+)\)?\s*$/.exec(line)?.[1];
    if (!frame || /node_modules|webpack\/(bootstrap|runtime)|^node:|<anonymous>/.test(frame)) continue;
    const file = frame.replace(/^webpack-internal:\/\/\/(\.\/)?/, '').replace(/^file:\/\//, '');
    // Said from where the sweep runs, when the file is under it.
    const shown = path.relative(process.cwd(), file);
    return path.isAbsolute(file) && !shown.startsWith('..') ? shown : file;
  }
  return undefined;
}

/**
 * A clean run's failed workflow task: its run has a workflow task pending again after one failed (its
 * code threw, or its bundle lacks what a module needs), which no kill explains. A clean run's task
 * that fails once fails every time: the sweep says why at once instead of waiting for the run.
 */
export async function findTaskFailure(client: Client, workflowId: string): Promise<Stuck | null> {
  let raw;
  try {
    ({ raw } = await client.workflow.getHandle(workflowId).describe());
  } catch {
    return null;
  }
  const attempt = raw.pendingWorkflowTask?.attempt ?? 0;
  if (attempt < 2) return null;
  const failed = await lastTaskFailure(client, workflowId);
  // A retried task with no failure timed out: a busy machine, which the clean run's own check judges.
  if (!failed || failed.cause === 'reset_workflow') return null;
  return { kind: 'task-failing', attempt, ...failed };
}
