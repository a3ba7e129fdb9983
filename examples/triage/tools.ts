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
}

/** The run's repository and tracker from its context, and the token only for the worker's own tracker. */
function reach(options: TriageToolsOptions, context: ToolContext['context']) {
  const { repo, trackerUrl: named } = context as Partial<Record<keyof TriageContext, unknown>>;
  if (typeof repo !== 'string' || repo === '')
    throw new ReceiverRefusedError('the triage tools need the run\'s repository (context: { repo: "..." })', 'NoRepo');
  if (named !== undefined && typeof named !== 'string')
    throw new ReceiverRefusedError('context.trackerUrl must be a URL string', 'BadContext');
  const tracker = reachTracker(options, named);
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
      ...(writes
        ? {
            lookup: async ({ key, context, byKey, signal }) =>
              lookupTrackerCall(name, { ...reach(options, context), key, byKey, signal }),
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
