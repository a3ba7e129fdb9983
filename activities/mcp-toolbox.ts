// The worker's MCP servers: connects to each (stdio or Streamable HTTP), lists tools, calls them with the
// call's key in `_meta`, and says whether a failed call may have acted.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { ApplicationFailure } from '@temporalio/activity';
import { isStdio, type McpConfig } from './mcp-config';
import {
  KEY_META,
  OUTCOME_META,
  RETENTION_META,
  TOOL_META,
  type LookupResult,
  type ToolIdempotency,
} from './mcp-conventions';
import type { ToolSpec } from '../workflows/tools';
import { MAX_ERROR_MESSAGE_BYTES, refused, ReceiverUnavailableError } from './errors';
import type { LookupAnswer, ToolReply } from './receiver-answers';
import { cutOutput, DEFAULT_MAX_OUTPUT_BYTES } from './tool-output';

/**
 * What the ladder needs to know about an MCP tool, from the server's annotations: `readOnlyHint` and
 * `idempotentHint` make a repeat harmless; the `idempotency` entry of the tool's `_meta` says whether
 * the server honours keys and which of its tools answers "did it happen?". A tool without annotations
 * counts as effectful and unkeyed: after a crash, only a person can settle it. Its arguments named in
 * `contextKeys` (the keys of the run's context) are the run's to fill in: the model does not see them.
 */
export function specFromMcpTool(server: string, tool: Tool, contextKeys: readonly string[] = []): ToolSpec {
  const idem = (tool._meta?.[TOOL_META] ?? {}) as ToolIdempotency;
  const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
  const contextArgs = contextKeys.filter((k) => schema.properties?.[k] !== undefined);
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).filter(([k]) => !contextArgs.includes(k)),
  );
  const parameters: Record<string, unknown> = contextArgs.length
    ? {
        ...schema,
        properties,
        ...(schema.required ? { required: schema.required.filter((r) => !contextArgs.includes(r)) } : {}),
      }
    : { ...schema };
  return {
    name: tool.name,
    description: tool.description ?? tool.title ?? tool.annotations?.title ?? '',
    parameters,
    readOnly: tool.annotations?.readOnlyHint === true,
    idempotent: tool.annotations?.idempotentHint === true,
    sendsKey: idem.keyed === true,
    lookup: typeof idem.lookup === 'string',
    ...(typeof idem.lookup === 'string' ? { lookupTool: idem.lookup } : {}),
    needsApproval: false,
    server,
    ...(contextArgs.length ? { contextArgs } : {}),
  };
}

/** Options of {@link McpToolbox}. */
export interface McpToolboxOptions {
  /** How long a call keeps trying to reach a server that refuses connections before it gives up. Default 10 s. */
  connectWaitMs?: number;
  /** Where a stdio server's stderr goes. Default `inherit` (the worker's stderr). */
  stderr?: 'inherit' | 'ignore';
}

/** Options of one tool call. */
export interface McpCallOptions {
  /** The call's idempotency key; always sent in `_meta`, honoured only by servers that say so. */
  key: string;
  /** The whole call, connecting included, gives up after this long. */
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * An earlier attempt of this call may have reached the server. Then a server that cannot be reached
   * settles nothing: the error is thrown plainly (outcome unknown) instead of as a refusal. Default `false`.
   */
  retrying?: boolean;
  /**
   * The tool changes something and its server does not honour keys: an error result whose `_meta`
   * does not say the tool did nothing (`outcome: "none"`) may hide an effect, so its outcome is
   * unknown. Default `false`: an error result means nothing happened unless it says `"unknown"`.
   */
  errorMayHideEffect?: boolean;
  /** The most of the tool's text the run keeps (its output cap): an error result is cut to it too. Default 1 MiB. */
  maxOutputBytes?: number;
}

/** Thrown when no request could be sent: the server could not be started or refused the connection. */
class NotSentError extends Error {
  constructor(
    readonly server: string,
    message: string,
  ) {
    super(`MCP server ${server} is unreachable: ${message}`);
    this.name = 'NotSentError';
  }
}

/** Error codes that say the server read the request and did not run it. */
const REJECTED = new Set<number>([
  ErrorCode.InvalidParams,
  ErrorCode.MethodNotFound,
  ErrorCode.InvalidRequest,
  ErrorCode.ParseError,
]);

/** Whether an error (or one of its causes) says the connection was refused or the command not found. */
function connectionRefused(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === 'ECONNREFUSED' || e.code === 'ENOENT' || e.code === 'EACCES') return true;
  }
  return false;
}

/**
 * The worker's MCP clients: one connection per configured server, opened on first use and opened
 * again after the server went away, so a server that crashed or restarted is reached on the next call.
 */
export class McpToolbox {
  private readonly clients = new Map<string, Promise<Client>>();

  constructor(
    readonly config: McpConfig,
    private readonly options: McpToolboxOptions = {},
  ) {}

  /** The servers' tools as the agent sees them; a name two servers share is an error. Lookup tools are left out. */
  async listTools(servers: string[], timeoutMs: number, contextKeys: readonly string[] = []): Promise<ToolSpec[]> {
    const specs: ToolSpec[] = [];
    for (const server of servers) {
      const tools = await this.withClient(server, { timeoutMs }, (client) =>
        client.listTools(undefined, { timeout: timeoutMs }),
      );
      const patience = this.config.mcpServers[server]?.receiverDownMs;
      const all = tools.tools.map((t) => ({
        ...specFromMcpTool(server, t, contextKeys),
        ...(patience ? { receiverDownMs: patience } : {}),
      }));
      const lookups = new Set(all.map((s) => s.lookupTool).filter(Boolean));
      for (const spec of all) {
        if (lookups.has(spec.name)) continue;
        const clash = specs.find((s) => s.name === spec.name);
        if (clash)
          throw refused(
            `MCP servers ${clash.server} and ${server} both have a tool named ${spec.name}`,
            'ToolNameClash',
          );
        specs.push(spec);
      }
    }
    return specs;
  }

  /**
   * Calls one tool. The result is the tool's text. A tool error fails without retry (nothing happened,
   * the model is told why) when the server says so or the tool is safe to repeat; one that the server
   * marks `unknown`, or one from an effectful unkeyed tool that says nothing (`errorMayHideEffect`),
   * is thrown plainly, as is a call cut off after it was sent: the ladder settles its outcome.
   */
  async callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<ToolReply> {
    const result = await this.withClient(server, options, (client) =>
      client.callTool({ name: tool, arguments: args, _meta: { [KEY_META]: options.key } }, undefined, {
        timeout: options.timeoutMs,
        signal: options.signal,
      }),
    );
    const text = textOf(result.content);
    if (result.isError) {
      // An error result is cut as an output is, and to what a failure's message holds (less room for its words).
      const cap = Math.min(options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES, MAX_ERROR_MESSAGE_BYTES - 1024);
      const shown = cutOutput(text, cap);
      const outcome = result._meta?.[OUTCOME_META];
      if (outcome === 'unknown' || (outcome !== 'none' && options.errorMayHideEffect)) {
        throw new ReceiverUnavailableError(server, null, `MCP tool ${tool} failed and may have acted: ${shown}`);
      }
      throw refused(`MCP tool ${tool} failed: ${shown}`, 'ToolError');
    }
    const retention = Number(result._meta?.[RETENTION_META]);
    return {
      output: text,
      replayed: result._meta?.replayed === true,
      ...(retention > 0 ? { retentionMs: retention * 1000 } : {}),
    };
  }

  /** Asks the server's lookup tool whether the call with `key` happened. */
  async lookup(
    server: string,
    lookupTool: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<LookupAnswer> {
    const out = await this.callTool(server, lookupTool, args, options);
    const answer = JSON.parse(out.output) as LookupResult;
    if (typeof answer.happened !== 'boolean')
      throw refused(`lookup tool ${lookupTool} answered without "happened": ${out.output}`, 'BadLookup');
    if (answer.happened) return { happened: true, output: answer.result };
    return typeof answer.mismatch === 'string' && answer.mismatch !== ''
      ? { happened: false, mismatch: answer.mismatch.slice(0, 4_000) }
      : { happened: false };
  }

  /** Closes every connection (stdio servers are stopped). */
  async close(): Promise<void> {
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.allSettled(clients.map(async (c) => (await c).close()));
  }

  /**
   * Runs `fn` on the server's client. A request that could not be sent (no connection) is tried again
   * until `connectWaitMs` has passed; that is safe for any tool, since nothing reached the server.
   */
  private async withClient<T>(
    server: string,
    options: { timeoutMs: number; signal?: AbortSignal; retrying?: boolean },
    fn: (client: Client) => Promise<T>,
  ): Promise<T> {
    const deadline = Date.now() + Math.min(this.options.connectWaitMs ?? 10_000, options.timeoutMs);
    for (let delay = 100; ; delay = Math.min(delay * 2, 1_000)) {
      try {
        const client = await this.connect(server);
        try {
          return await fn(client);
        } catch (err) {
          if (connectionRefused(err)) throw new NotSentError(server, (err as Error).message);
          throw err;
        }
      } catch (err) {
        if (err instanceof ApplicationFailure) throw err;
        if (err instanceof McpError && REJECTED.has(err.code))
          throw refused(`MCP server ${server}: ${err.message}`, 'ToolRejected');
        if (!(err instanceof NotSentError)) {
          this.forget(server);
          throw new ReceiverUnavailableError(
            server,
            null,
            `MCP server ${server} did not answer: ${(err as Error).message}`,
          );
        }
        this.forget(server);
        if (Date.now() + delay > deadline || options.signal?.aborted) {
          // Nothing was sent now; whether an earlier attempt acted is still unknown.
          if (options.retrying) throw new ReceiverUnavailableError(server, null, err.message);
          throw refused(err.message, 'ToolServerUnreachable');
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private connect(server: string): Promise<Client> {
    const existing = this.clients.get(server);
    if (existing) return existing;
    const config = this.config.mcpServers[server];
    if (!config) {
      const known = Object.keys(this.config.mcpServers).join(', ') || 'none';
      throw refused(
        `no MCP server named ${server} in this worker's configuration (configured: ${known})`,
        'UnknownMcpServer',
      );
    }
    const client = new Client({ name: 'crash-safe-agent', version: '0.1.0' });
    const transport = isStdio(config)
      ? new StdioClientTransport({ ...config, stderr: this.options.stderr ?? 'inherit' })
      : new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    const connecting = client.connect(transport).then(
      () => client,
      (err: Error) => {
        void client.close().catch(() => {});
        throw new NotSentError(server, err.message);
      },
    );
    // A stdio server that exits closes its transport: the next call starts it again.
    client.onclose = () => {
      if (this.clients.get(server) === connecting) this.clients.delete(server);
    };
    // An HTTP server that dies while it streams a reply (SSE) leaves the SDK's request waiting for a
    // reply that will not come until its timeout. Closing the client fails the request at once, as
    // "outcome unknown", and the next call connects afresh.
    client.onerror = (err) => {
      if (/SSE stream disconnected|reconnection attempts|Failed to reconnect/.test(err.message)) {
        if (this.clients.get(server) === connecting) this.clients.delete(server);
        void client.close().catch(() => {});
      }
    };
    this.clients.set(server, connecting);
    return connecting;
  }

  private forget(server: string): void {
    const client = this.clients.get(server);
    this.clients.delete(server);
    void client?.then((c) => c.close()).catch(() => {});
  }
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((c: { type?: string; text?: string }) => (c.type === 'text' ? (c.text ?? '') : JSON.stringify(c)))
    .join('\n');
}
