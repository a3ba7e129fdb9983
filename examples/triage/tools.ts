// The triage agent's tools, defined as any user defines theirs: the issue tracker's create, comment
// and search, with their keys, their lookup and a crash point of their own, on the package's API.
import { defineTool, ReceiverRefusedError, type ToolContext } from '../../lib/worker';
import { reachTracker } from '../../tracker/client';
import { callTrackerTool, lookupTrackerCall } from '../../tracker/tools';
import { TRACKER_TOOL_SPECS } from '../../tracker/tool-specs';

/** The triage agent's system prompt. */
export const TRIAGE_INSTRUCTIONS =
  'You triage bug reports. File issues for what is broken, comment with findings, search before you finish, ' +
  'then reply with a short summary.';

/** The names a run gives in `AgentInput.tools` to use the triage tools. */
export const TRIAGE_TOOL_NAMES: string[] = TRACKER_TOOL_SPECS.map((t) => t.name);

/**
 * What a triage run acts on, which the model neither sees nor chooses: its repository, and the
 * tracker if not the worker's own. A run gives it as `AgentInput.context`.
 */
export interface TriageContext {
  repo: string;
  trackerUrl?: string;
}

/** Options of {@link triageTools}: the worker's own tracker. */
export interface TriageToolsOptions {
  /** The tracker of runs that name none in their context. */
  trackerUrl?: string;
  /** The bearer token of the tracker at `trackerUrl`; never sent to a tracker a run names. */
  trackerToken?: string;
  /**
   * Other trackers a run's `context.trackerUrl` may name (their URLs; only the origin counts), or
   * `'any'`. Default none: a run naming another tracker than the worker's own fails at once
   * (`BadInput`), so a run's input cannot send the worker's requests, and their answers into
   * history, anywhere it likes.
   */
  otherTrackers?: readonly string[] | 'any';
}

/** Why a run's context names a tracker this worker was not configured for, or `null`. */
export function trackerProblem(options: TriageToolsOptions, context: Readonly<Record<string, unknown>>): string | null {
  const named = context.trackerUrl;
  if (named === undefined) return null;
  if (typeof named !== 'string') return 'context.trackerUrl must be a URL string';
  let origin: string;
  try {
    origin = new URL(named).origin;
  } catch {
    return `context.trackerUrl ${JSON.stringify(named.slice(0, 200))} is not a URL`;
  }
  if (options.otherTrackers === 'any') return null;
  const allowed = [options.trackerUrl, ...(options.otherTrackers ?? [])].filter((u): u is string => Boolean(u));
  if (allowed.some((u) => new URL(u).origin === origin)) return null;
  return `context.trackerUrl names ${origin}, a tracker this worker was not configured for (its own: ${
    options.trackerUrl ? new URL(options.trackerUrl).origin : 'none'
  }; more with triageTools({ otherTrackers }))`;
}

/** The run's repository and tracker from its context, and the token only for the worker's own tracker. */
function reach(options: TriageToolsOptions, context: ToolContext['context']) {
  const { repo, trackerUrl: named } = context as Partial<Record<keyof TriageContext, unknown>>;
  if (typeof repo !== 'string' || repo === '')
    throw new ReceiverRefusedError('the triage tools need the run\'s repository (context: { repo: "..." })', 'NoRepo');
  const problem = trackerProblem(options, context);
  if (problem) throw new ReceiverRefusedError(problem, 'BadContext');
  const tracker = reachTracker(options, named as string | undefined);
  if (!tracker)
    throw new ReceiverRefusedError(
      'no tracker: give the worker a trackerUrl, or the run context.trackerUrl',
      'NoTracker',
    );
  return { repo, ...tracker };
}

/**
 * The tracker's three tools (`tracker/tool-specs.ts` has what the model sees of them). The two that write are
 * `keyed` (the tracker honours `Idempotency-Key`) and can be looked up: by their key, or, when the key
 * cannot be used (a keyless tracker, an expired key), by the trace line each writes into what it
 * creates. `tracker.accepted` is a crash point of their own: the tracker has committed and replied,
 * and the worker has not read the reply.
 */
export function triageTools(options: TriageToolsOptions = {}) {
  return TRACKER_TOOL_SPECS.map(({ name, description, parameters, effect }) => {
    const writes = effect === 'keyed';
    return defineTool({
      name,
      description,
      parameters,
      effect,
      receiver: 'tracker',
      checkContext: (context) => trackerProblem(options, context),
      ...(writes
        ? {
            lookup: async ({ key, args, context, byKey, signal }) =>
              lookupTrackerCall(name, { ...reach(options, context), key, byKey, args, signal }),
          }
        : {}),
      run: async (args, ctx) => {
        const result = await callTrackerTool(name, args, {
          ...reach(options, ctx.context),
          key: ctx.key,
          sendKey: writes,
          signal: ctx.signal,
          ...(writes ? { onReply: () => ctx.point('tracker.accepted') } : {}),
        });
        if (writes && result.retentionMs) ctx.keysKeptFor(result.retentionMs);
        return result.output;
      },
    });
  });
}
