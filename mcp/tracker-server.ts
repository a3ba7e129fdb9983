import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { callTrackerTool } from '../activities/tracker-tools';

/** The `_meta` field of a tool call that carries the call's idempotency key; forwarded as `Idempotency-Key`. */
export const KEY_META = 'idempotency-key';

/** Options of {@link buildTrackerMcpServer}. */
export interface TrackerMcpOptions {
  /** The tracker's base URL. */
  trackerUrl: string;
  /** The tracker repository the tools act on. Default `demo`. */
  repo?: string;
}

/**
 * An MCP server exposing the tracker's tools, with annotations that tell a client which are safe to
 * repeat. A call's idempotency key travels in its `_meta` and goes to the tracker as the
 * `Idempotency-Key` header, so a retry with the same key creates nothing new.
 */
export function buildTrackerMcpServer(options: TrackerMcpOptions): McpServer {
  const server = new McpServer({ name: 'tracker', version: '0.1.0' });
  const repoArg = z.string().optional().describe('Tracker repository; default the server\'s');

  const run = async (tool: string, args: Record<string, unknown>, meta: Record<string, unknown> | undefined) => {
    const { repo, ...rest } = args as { repo?: string };
    const key = typeof meta?.[KEY_META] === 'string' ? (meta[KEY_META] as string) : undefined;
    try {
      const out = await callTrackerTool(tool, rest, {
        trackerUrl: options.trackerUrl,
        repo: repo ?? options.repo ?? 'demo',
        // Without a key the trace line still needs a value; the header is only sent with a real key.
        key: key ?? 'none',
        sendKey: key !== undefined,
      });
      return { content: [{ type: 'text' as const, text: out.output }], _meta: { replayed: out.replayed } };
    } catch (err) {
      // A refusal or an unreachable tracker is a tool error the model can read, not a protocol error.
      return { isError: true, content: [{ type: 'text' as const, text: (err as Error).message }] };
    }
  };

  // registerTool's generic types recurse past what tsc allows for these schemas; the handlers' types are plain.
  type Handler = (args: Record<string, unknown>, extra: { _meta?: Record<string, unknown> }) => ReturnType<typeof run>;
  const register = server.registerTool.bind(server) as unknown as (name: string, config: object, handler: Handler) => void;

  register(
    'create_issue',
    {
      description: 'File a new issue in the tracker. Returns the issue with its number.',
      inputSchema: { title: z.string().min(1), body: z.string(), labels: z.array(z.string()).optional(), repo: repoArg },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args, extra) => run('create_issue', args, extra._meta),
  );
  register(
    'comment_on_issue',
    {
      description: 'Add a comment to an existing issue, by its number.',
      inputSchema: { number: z.number().int().positive(), body: z.string().min(1), repo: repoArg },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args, extra) => run('comment_on_issue', args, extra._meta),
  );
  register(
    'search_issues',
    {
      description: 'Find issues whose title, body or comments contain the query text.',
      inputSchema: { query: z.string(), repo: repoArg },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
    },
    (args, extra) => run('search_issues', args, extra._meta),
  );
  return server;
}
