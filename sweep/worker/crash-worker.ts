// What every worker process the engine starts does: the crash hook, standby until told to poll, the line protocol.
import { readFileSync } from 'node:fs';
import readline from 'node:readline';
import { AsyncLocalStorage } from 'node:async_hooks';
import { temporal } from '@temporalio/proto';
import {
  NativeConnection,
  type ActivityInterceptorsFactory,
  type Worker,
  type WorkerOptions,
} from '@temporalio/worker';
import { temporalFromEnv } from '../../common/config';
import { CANCEL_SEEN_MARK, FAILED_FOR_RETRY_MARK, setCrashHook, type PointContext } from '../../common/crash-points';
import {
  LINE_PREFIX,
  matches,
  pointKey,
  samePointForEveryRun,
  type CrashEvent,
  type CrashPlan,
  type RunIds,
} from './line-protocol';
import { FINISHING_WORKFLOW_TASKS, SWEEP_WORKER_TUNING } from './tuning';

/** What a crash worker's `build` gets: the engine's settings for the worker it makes. */
export interface CrashWorkerSettings {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** The identity the server records for this process's tasks (`gen-LABEL@PID`), if the harness named one. */
  identity?: string;
  /** Cache and concurrency settings for a process that parks many runs at once. */
  tuning: Partial<WorkerOptions>;
  /** Reports activities that outlive their timeout: give it to the worker. */
  activityInterceptors: ActivityInterceptorsFactory[];
}

/** Prints one event of the line protocol on stdout. */
function emit(event: CrashEvent): void {
  process.stdout.write(`${LINE_PREFIX}${JSON.stringify(event)}\n`);
}

/** What the harness can do to a crash hook after it is installed. */
export interface CrashHookControl {
  /**
   * Lets every parked workflow go on from where it waits (the worker survived what the harness killed,
   * the Temporal server), with `targets` as the plan from now on. A resumed run counts its points from
   * 1 again, as in a new generation, so a second kill's target is written the same way.
   */
  resume(targets: CrashPlan['targets']): void;
}

/** What the plugin reports, besides points, when a run sees the engine's operation. */
const OPERATION_MARKS = new Set([FAILED_FOR_RETRY_MARK, CANCEL_SEEN_MARK]);

/** A call's attempt, as the hook sees it at an activity-side point. */
export interface AttemptSeen {
  activityId: string;
  /** Its activity type (`runTool`, `lookupCall`). */
  activityType: string;
  /** When its call was first scheduled (the server's clock, which is this machine's), in ms. */
  scheduledAtMs: number;
  /** Its attempt number. */
  attempt: number;
  /** When its start-to-close timeout runs out, as this worker sees it (the attempt's start here, plus the timeout), in ms. */
  deadlineMs: number;
  /** When this worker started the attempt, in ms. */
  startedAtMs: number;
}

/**
 * How long before its deadline (as this worker sees it) an attempt's points are checked with the
 * server: the server's clock for the timeout started when it handed the attempt out, a little sooner.
 */
const DEADLINE_CHECKED_BEFORE_MS = 1_000;

/**
 * What the hook asks of the worker around it (`runCrashWorker` answers, from the activity's context and
 * from the server): the attempt a point is reached in, and a cancelled run's answer to its cancel.
 */
export interface WorkerView {
  /** The attempt whose point this is; `undefined` outside an activity. */
  attempt(): AttemptSeen | undefined;
  /**
   * A call the run had scheduled before it saw the cancel may be tried again (its attempt in the dead
   * worker timed out) while the run's answer to the cancel is still on its way to the server, which
   * starts that attempt all the same. Resolves once the server has the answer: `cancelled` if it asked
   * to cancel the call (or the run has ended), `runs` if it left the call running (a clean-up waits for it).
   */
  cancelAnswerOf(workflowId: string, activityId: string): Promise<'cancelled' | 'runs'>;
  /** Whether the server has given up on the attempt (it timed out, and the call was retried or failed). */
  abandoned(workflowId: string, activityId: string, attempt: number): Promise<boolean>;
}

/** The promise a parked or held call waits on: it never settles. */
const never = () => new Promise<void>(() => {});

/**
 * Records every crash point this process reaches (a workflow task that runs again reports its points
 * once), and parks each workflow named in the plan at its target: that call does not return, and every
 * later point of the same workflow parks too, so nothing more happens for it until the harness
 * SIGKILLs the process, or resumes the run ({@link CrashHookControl.resume}). Other workflows keep
 * running, so many scenarios can share one process.
 */
export function installCrashHook(plan: CrashPlan, view?: WorkerView): CrashHookControl {
  const hook = new CrashHook(plan, view);
  setCrashHook((name, context) => hook.point(name, context));
  return { resume: (targets) => hook.resume(targets) };
}

/** The crash hook's state in one process, and what it does at each point (see {@link installCrashHook}). */
class CrashHook {
  private targets: CrashPlan['targets'];
  private readonly counts = new Map<string, number>();
  /** Each parked workflow, with the calls it holds (resolved by a resume), and when it was parked. */
  private readonly parked = new Map<string, Array<() => void>>();
  private readonly parkedAtMs = new Map<string, number>();
  private readonly faulted = new Set<string>();
  /** Workflow-side points each run has passed since its last activity-side point. */
  private readonly decidedSince = new Map<string, Set<string>>();
  /** The points each run passes without counting them: a kept connection's setup. */
  private readonly uncounted: Map<string, { ids: RunIds; points: Set<string> }>;
  /**
   * The runs the engine failed for their retry policy or cancelled at the kill before this process,
   * and, once the plugin marks that the run saw it, the execution it was done to (`null` until then).
   */
  private readonly operated: Map<string, { kind: 'retry' | 'cancel'; marked: string | null; markedAtMs: number }>;
  /** The server's answer to a cancel, by run and call, asked once for all the points of the call. */
  private readonly answers = new Map<string, Promise<'cancelled' | 'runs'>>();

  constructor(
    private readonly plan: CrashPlan,
    private readonly view?: WorkerView,
  ) {
    this.targets = plan.targets;
    this.uncounted = new Map(
      Object.entries(plan.uncounted ?? {}).map(([id, { ids, points }]) => [id, { ids, points: new Set(points) }]),
    );
    this.operated = new Map(
      Object.entries(plan.operated ?? {}).map(([id, kind]) => [
        id,
        { kind, marked: null, markedAtMs: Number.POSITIVE_INFINITY },
      ]),
    );
  }

  /** What the plugin calls at every point: an operation's mark, a point held by an operation, or a point reached. */
  point(name: string, context: PointContext): void | Promise<void> {
    const { workflowId, fromWorkflow, execution } = context;
    const op = this.operated.get(workflowId);
    if (OPERATION_MARKS.has(name)) {
      // Not a point: the run's word that it saw the engine's operation.
      if (op && op.marked === null) {
        op.marked = execution ?? '';
        op.markedAtMs = Date.now();
      }
      return;
    }
    if (op) {
      // Until the run has seen the operation, nothing of it acts: its workflow tasks go on (the one
      // that sees it must run), its activities stop here. After a retry, the same for the failed
      // execution; after a cancel, what the run does is its own clean-up.
      const before = op.marked === null;
      const failed = op.kind === 'retry' && execution !== undefined && execution === op.marked;
      if (before || failed) return fromWorkflow ? undefined : never();
      // A call scheduled before the run saw the cancel waits for the run's answer to reach the server:
      // cancelled, it never acts, as when the answer comes first; left running, it goes on.
      const attempt = op.kind === 'cancel' && !fromWorkflow ? this.view?.attempt() : undefined;
      if (attempt && attempt.scheduledAtMs < op.markedAtMs) {
        const key = `${workflowId} ${attempt.activityId}`;
        if (!this.answers.has(key)) this.answers.set(key, this.view!.cancelAnswerOf(workflowId, attempt.activityId));
        return this.answers.get(key)!.then((answer) => (answer === 'cancelled' ? never() : this.reach(name, context)));
      }
    }
    return this.reach(name, context);
  }

  /** A point of a run that may act. */
  private reach(name: string, context: PointContext): void | Promise<void> {
    // An attempt the server has given up on (it timed out: a slow receiver answered it late): what it
    // reaches is not the run's path, and when it reaches it races the run's next workflow task.
    // Passed, not counted. Asked of the server only near or past the attempt's deadline.
    const attempt = context.fromWorkflow ? undefined : this.view?.attempt();
    if (attempt && Date.now() > attempt.deadlineMs - DEADLINE_CHECKED_BEFORE_MS)
      return this.view!.abandoned(context.workflowId, attempt.activityId, attempt.attempt).then((abandoned) =>
        abandoned ? undefined : this.count(name, context),
      );
    return this.count(name, context);
  }

  /** A point on the run's path: counted and reported, or parked at, or faulted. */
  private count(name: string, { workflowId, detail, fromWorkflow }: PointContext): void | Promise<void> {
    // A kept connection's setup, which only the first run of a process reaches: passed, not counted.
    const own = this.uncounted.get(workflowId);
    const setup = own?.points.has(pointKey(samePointForEveryRun({ name, detail }, own.ids)));
    if (setup && !this.parked.has(workflowId)) return;
    const workflowSide = fromWorkflow === true;
    const repeat = this.repeatedTaskPoint(workflowId, `${name} ${detail}`, workflowSide);
    const held = this.parked.get(workflowId);
    if (held) {
      this.reportTakenWhileParked(workflowId, name, detail, workflowSide);
      return new Promise<void>((resolve) => held.push(resolve));
    }
    const index = (this.counts.get(workflowId) ?? 0) + (repeat ? 0 : 1);
    this.counts.set(workflowId, index);
    const target = this.targets[workflowId];
    if (!repeat && target && matches(target, index, name, detail)) {
      emit({ type: 'parked', workflowId, index, name, detail, at: Date.now() });
      this.parkedAtMs.set(workflowId, Date.now());
      return new Promise<void>((resolve) => this.parked.set(workflowId, [resolve]));
    }
    if (!repeat) emit({ type: 'point', workflowId, index, name, detail });
    const fault = this.plan.faults?.[workflowId];
    if (fault && fault.name === name && !this.faulted.has(`${workflowId} ${detail}`)) {
      this.faulted.add(`${workflowId} ${detail}`);
      throw new Error(`tool server died mid-call at ${name} (${detail})`);
    }
  }

  /**
   * Whether a workflow-side point is one the run passed already since its last activity-side point. A
   * workflow task that runs again because its first attempt was lost (its worker died, or the server
   * dropped its completion under load) passes the same workflow-side points again, with no activity
   * between. Those are the same boundaries: they keep their index and are reported once, so the points
   * a run reaches do not depend on how busy the machine was.
   */
  private repeatedTaskPoint(workflowId: string, point: string, workflowSide: boolean): boolean {
    const seen = this.decidedSince.get(workflowId) ?? new Set<string>();
    this.decidedSince.set(workflowId, seen);
    const repeat = workflowSide && seen.has(point);
    if (workflowSide) seen.add(point);
    else seen.clear();
    return repeat;
  }

  /**
   * An activity attempt this process started after it parked the run: the parked attempt timed out
   * before the harness's kill, and the server handed its retry (or a call the run scheduled since) to
   * this doomed process, where it holds too, spending the call's attempts. A kill at one instant leaves
   * it to the next worker: the run is no longer the fault its scenario stands for.
   */
  private reportTakenWhileParked(workflowId: string, name: string, detail: string, workflowSide: boolean): void {
    const attempt = workflowSide ? undefined : this.view?.attempt();
    if (attempt && attempt.startedAtMs >= (this.parkedAtMs.get(workflowId) ?? Infinity))
      emit({
        type: 'taken-while-parked',
        workflowId,
        name,
        detail,
        activityId: attempt.activityId,
        activityType: attempt.activityType,
        attempt: attempt.attempt,
      });
  }

  /** See {@link CrashHookControl.resume}. */
  resume(next: CrashPlan['targets']): void {
    this.targets = next;
    const waiting = [...this.parked];
    this.parked.clear();
    this.parkedAtMs.clear();
    for (const [workflowId, calls] of waiting) {
      this.counts.set(workflowId, 0);
      for (const go of calls) go();
    }
  }
}

/** The attempt each activity-side point is reached in, for the crash hook. */
const attemptNow = new AsyncLocalStorage<AttemptSeen>();

/**
 * Watches every activity attempt. Keeps it where the crash hook finds it ({@link WorkerView.attempt}),
 * and reports one that ran past its start-to-close timeout, or that the server cancelled as timed out
 * or unknown: the server gave up on a live attempt and may have started another, so what the run does
 * next was caused by a slow machine, not by a kill. The harness turns it into an error.
 */
function watchAttempts(): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        const started = performance.now();
        const { activityId, activityType, scheduledTimestampMs, startToCloseTimeoutMs, isLocal, attempt } = ctx.info;
        const seen: AttemptSeen = {
          activityId,
          activityType,
          scheduledAtMs: scheduledTimestampMs,
          attempt,
          startedAtMs: Date.now(),
          // A local activity is no pending activity of the server's: never checked.
          deadlineMs: isLocal || !startToCloseTimeoutMs ? Number.POSITIVE_INFINITY : Date.now() + startToCloseTimeoutMs,
        };
        try {
          return await attemptNow.run(seen, () => next(input));
        } finally {
          const ms = Math.round(performance.now() - started);
          const { workflowExecution } = ctx.info;
          const cancelled = ctx.cancellationDetails;
          if (ms > startToCloseTimeoutMs || cancelled?.timedOut || cancelled?.notFound) {
            const why = cancelled?.timedOut
              ? ', cancelled as timed out'
              : cancelled?.notFound
                ? ', unknown to the server'
                : '';
            emit({
              type: 'late',
              workflowId: workflowExecution?.workflowId ?? '',
              activityType,
              detail: `${activityType} attempt ${attempt} ran ${ms} ms against a ${startToCloseTimeoutMs} ms timeout${why}`,
            });
          }
        }
      },
    },
  });
}

/** How often the server is asked whether a cancelled run's answer has reached it. */
const ANSWER_POLL_MS = 50;
/** After this long without an answer, a held call goes on (and the run's scenario shows what it did). */
const ANSWER_CAP_MS = 30_000;

/**
 * The worker's side of {@link WorkerView}: the attempt from the activity's context; a cancel's answer from the server (`DescribeWorkflowExecution`) until the
 * run has ended, or has asked to cancel the call, or has no workflow task left to answer with.
 */
function workerViewOf(connection: NativeConnection, namespace: string): WorkerView {
  const { PendingActivityState, WorkflowExecutionStatus } = temporal.api.enums.v1;
  // `null`: the server did not answer.
  const describe = (workflowId: string) =>
    connection.workflowService.describeWorkflowExecution({ namespace, execution: { workflowId } }).catch(() => null);
  return {
    attempt: () => attemptNow.getStore(),
    async cancelAnswerOf(workflowId, activityId) {
      const deadline = Date.now() + ANSWER_CAP_MS;
      while (Date.now() < deadline) {
        const described = await describe(workflowId); // no answer: asked again
        if (described) {
          const status = described.workflowExecutionInfo?.status;
          if (status !== WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) return 'cancelled';
          const call = described.pendingActivities?.find((a) => a.activityId === activityId);
          if (!call || call.state === PendingActivityState.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED) return 'cancelled';
          if (!described.pendingWorkflowTask) return 'runs';
        }
        await new Promise((r) => setTimeout(r, ANSWER_POLL_MS));
      }
      return 'runs';
    },
    async abandoned(workflowId, activityId, attempt) {
      const described = await describe(workflowId);
      // No answer from the server: counted as live, as before the check.
      if (!described) return false;
      const call = described.pendingActivities?.find((a) => a.activityId === activityId);
      return !call || (call.attempt ?? 0) !== attempt;
    },
  };
}

/** A generation's exit code when the sweep that started it is gone. */
export const EXIT_SWEEP_GONE = 3;

/**
 * The body of every worker process the sweep starts (a "generation"), whatever it runs: installs the
 * crash hook from the plan (`CRASH_PLAN`, a JSON file), lets `build` make the worker with the engine's
 * settings (one worker, or several: one per build of a versioned deploy), reports `ready`, and with `CRASH_STANDBY=1` polls only when a line arrives on stdin (the
 * harness launches the next generation that way while the current one still runs, and lets it poll
 * the moment the current one is dead).
 *
 * Environment: `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TASK_QUEUE`, `CRASH_PLAN`, `CRASH_STANDBY`,
 * `WORKER_IDENTITY` (the server records `NAME@PID` for every task this process starts). In standby
 * it exits once stdin closes: the sweep that started it is gone.
 */
export async function runCrashWorker(
  build: (settings: CrashWorkerSettings) => Promise<Worker | Worker[]>,
): Promise<void> {
  const plan: CrashPlan = process.env.CRASH_PLAN
    ? (JSON.parse(readFileSync(process.env.CRASH_PLAN, 'utf8')) as CrashPlan)
    : { targets: {} };
  const server = temporalFromEnv();
  const connection = await NativeConnection.connect({ address: server.address });
  const namespace = server.namespace;
  const hook = installCrashHook(plan, workerViewOf(connection, namespace));
  const workers = [
    await build({
      connection,
      namespace,
      taskQueue: process.env.TASK_QUEUE ?? 'crash-sweep',
      identity: process.env.WORKER_IDENTITY ? `${process.env.WORKER_IDENTITY}@${process.pid}` : undefined,
      // A generation that parks nothing takes a batch's runs to their end: it works on a few workflow
      // tasks at a time and leaves the rest waiting on the server, where a task's start-to-close timeout
      // has not started yet. Taking every task at once would leave the last ones to time out in a live
      // worker on a busy machine. A generation that parks runs needs a slot for each parked task.
      tuning:
        Object.keys(plan.targets).length === 0
          ? { ...SWEEP_WORKER_TUNING, maxConcurrentWorkflowTaskExecutions: FINISHING_WORKFLOW_TASKS }
          : SWEEP_WORKER_TUNING,
      activityInterceptors: [watchAttempts()],
    }),
  ].flat();
  emit({ type: 'ready' });
  if (process.env.CRASH_STANDBY === '1') {
    await new Promise<void>((go) => {
      let first = true;
      const lines = readline.createInterface({ input: process.stdin });
      lines.on('line', (line) => {
        if (first) go();
        else if (line.trim()) hook.resume((JSON.parse(line) as { resume: CrashPlan['targets'] }).resume);
        first = false;
      });
      // The sweep holds the other end of stdin for as long as it lives: once it is gone (it failed,
      // was interrupted or SIGKILLed), no one will ever kill or count this generation, so it ends too.
      lines.on('close', () => process.exit(EXIT_SWEEP_GONE));
    });
  }
  // One worker, or one per build (a versioned deploy runs both builds in each process).
  await Promise.all(workers.map((w) => w.run()));
  await connection.close();
}
