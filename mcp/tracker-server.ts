// The tracker's tools as an MCP server: writes carry the call's key from `_meta`, `lookup_call` answers "did it happen?".
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { keyProblem } from '../common/key';
import { ReceiverRefusedError, ReceiverUnavailableError } from '../common/receiver-errors';
import { callTrackerTool, lookupTrackerCall } from '../tracker/tools';
import { crashPoint } from '../common/crash-points';
import { TRACKER_TOOL_SPECS } from '../tracker/tool-specs';
import { argsShape } from '../tracker/tool-args';
import {
  KEY_META,
  OUTCOME_META,
  RETENTION_META,
  TOOL_META,
  type LookupArgs,
  type LookupResult,
  type ToolIdempotency,
} from '../activities/mcp-conventions';

export { KEY_META };

/** Options of {@link buildTrackerMcpServer}. */
export interface TrackerMcpOptions {
  /** The tracker's base URL. */
  trackerUrl: string;
  /** The tracker's bearer token, if it requires one (`TRACKER_TOKEN`). */
  trackerToken?: string;
  /** The tracker repository the tools act on. Default `demo`. */
  repo?: string;
  /**
   * The tracker honours idempotency keys, so the server advertises its writes as keyed (a repeat is
   * harmless). Ask the tracker (`trackerHonoursKeys`); never assume it. Default `false`.
   */
  keyed?: boolean;
}

/**
 * Whether the tracker at `trackerUrl` honours idempotency keys, from its `/health`. A tracker that
 * cannot be reached within `waitMs` counts as keyless: a client then treats the writes as unkeyed,
 * which costs lookups, never a duplicate.
 */
export async function trackerHonoursKeys(
  trackerUrl: string,
  waitMs = 5_000,
): Promise<{ keyed: boolean; why?: string }> {
  const deadline = Date.now() + waitMs;
  let why = '';
  for (;;) {
    try {
      const res = await fetch(`${trackerUrl.replace(/\/+$/, '')}/health`, { signal: AbortSignal.timeout(2_000) });
      const body = (await res.json()) as { keyless?: unknown };
      if (res.ok && typeof body.keyless === 'boolean') return { keyed: !body.keyless };
      why = `its /health answered ${res.status} without saying whether it keeps keys`;
    } catch (err) {
      why = `it cannot be reached: ${(err as Error).message}`;
    }
    if (Date.now() >= deadline) return { keyed: false, why };
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * An MCP server exposing the tracker's tools, with annotations that tell a client which are safe to
 * repeat. A call's idempotency key travels in its `_meta` and goes to the tracker as the
 * `Idempotency-Key` header, so a retry with the same key creates nothing new.
 */
export function buildTrackerMcpServer(options: TrackerMcpOptions): McpServer {
  const server = new McpServer({ name: 'tracker', version: '0.1.0' });
  const repoArg = z.string().optional().describe("Tracker repository; default the server's");

  const text = (value: string) => [{ type: 'text' as const, text: value }];
  /** A tool error: `unknown` when the tracker may have acted (it went away mid-request), else `none`. */
  const failure = (err: unknown) => ({
    isError: true,
    content: text((err as Error).message),
    // Not sent now says nothing of an earlier attempt with the same key: still unknown.
    _meta: { [OUTCOME_META]: err instanceof ReceiverUnavailableError ? 'unknown' : 'none' },
  });

  const run = async (tool: string, args: Record<string, unknown>, meta: Record<string, unknown> | undefined) => {
    const { repo, ...rest } = args as { repo?: string };
    // A key that is there but is no key is refused: sent on without it, a repeat would act twice.
    const given = meta?.[KEY_META];
    const problem = given === undefined ? null : keyProblem(given);
    if (problem)
      return failure(new ReceiverRefusedError(`invalid params: _meta["${KEY_META}"]: ${problem}`, 'InvalidParams'));
    const key = given as string | undefined;
    try {
      const out = await callTrackerTool(tool, rest, {
        trackerUrl: options.trackerUrl,
        trackerToken: options.trackerToken,
        repo: repo ?? options.repo ?? 'demo',
        // Without a key the trace line still needs a value; the header is only sent with a real key.
        key: key ?? 'none',
        sendKey: key !== undefined,
        // The boundary where this process dying leaves the tracker changed and the client unanswered.
        onReply: () => crashPoint('mcp.accepted', { workflowId: 'mcp', detail: `${tool} ${key ?? 'none'}` }),
      });
      return {
        content: text(out.output),
        _meta: { replayed: out.replayed, ...(out.retentionMs ? { [RETENTION_META]: out.retentionMs / 1000 } : {}) },
      };
    } catch (err) {
      // A refusal or an unreachable tracker is a tool error the model can read, not a protocol error.
      return failure(err);
    }
  };

  /** Did the call with this key happen? By key on a keyed tracker, else by the trace line it wrote. */
  const lookup = async (args: Record<string, unknown>) => {
    const { tool, key, repo, arguments: callArgs } = args as unknown as LookupArgs & { repo?: string };
    const ctx = {
      trackerUrl: options.trackerUrl,
      trackerToken: options.trackerToken,
      repo: repo ?? options.repo ?? 'demo',
      key,
      // What the record found must match; a client that sends none gets a record matched against nothing.
      args: callArgs ?? {},
    };
    try {
      let found;
      try {
        found = await lookupTrackerCall(tool, { ...ctx, byKey: true });
      } catch (err) {
        // 501: a keyless tracker keeps no keys, but the call left its trace line in what it created.
        if (!(err instanceof ReceiverUnavailableError && err.status === 501)) throw err;
        found = await lookupTrackerCall(tool, { ...ctx, byKey: false });
      }
      const answer: LookupResult = found.happened
        ? { happened: true, result: found.output }
        : { happened: false, ...(found.mismatch ? { mismatch: found.mismatch } : {}) };
      return { content: text(JSON.stringify(answer)) };
    } catch (err) {
      return failure(err);
    }
  };
  // What the tracker behind this server really does: keyed only if it said so.
  const effectful: { [TOOL_META]: ToolIdempotency } = {
    [TOOL_META]: { keyed: options.keyed === true, lookup: 'lookup_call' },
  };

  // registerTool's generic types recurse past what tsc allows for these schemas; the handlers' types are plain.
  type ToolResult = {
    content: Array<{ type: 'text'; text: string }>;
    isError?: boolean;
    _meta?: Record<string, unknown>;
  };
  type Handler = (args: Record<string, unknown>, extra: { _meta?: Record<string, unknown> }) => Promise<ToolResult>;
  const register = server.registerTool.bind(server) as unknown as (
    name: string,
    config: object,
    handler: Handler,
  ) => void;

  // The tracker's tools as tracker/tool-specs.ts describes them: descriptions, effects, and input schemas made from their arguments' one schema.
  for (const spec of TRACKER_TOOL_SPECS) {
    const readOnly = spec.effect === 'read-only';
    register(
      spec.name,
      {
        description: spec.description,
        inputSchema: { ...argsShape(spec), repo: repoArg },
        annotations: {
          readOnlyHint: readOnly,
          idempotentHint: readOnly,
          destructiveHint: false,
          openWorldHint: true,
        },
        ...(spec.effect === 'keyed' ? { _meta: effectful } : {}),
      },
      (args, extra) => run(spec.name, args, extra._meta),
    );
  }
  // The tools a call can be looked up for: those that write, as the specs say.
  const [firstKeyed, ...keyed] = TRACKER_TOOL_SPECS.filter((t) => t.effect === 'keyed').map((t) => t.name);
  register(
    'lookup_call',
    {
      description: `Whether the ${[firstKeyed, ...keyed].join(' or ')} call with this idempotency key happened, and what it returned.`,
      inputSchema: {
        tool: z.enum([firstKeyed, ...keyed]),
        key: z.string().min(1),
        repo: repoArg,
        arguments: z.record(z.string(), z.unknown()).optional(),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
    },
    (args) => lookup(args),
  );
  return server;
}
