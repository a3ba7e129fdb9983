// The worker's MCP configuration file (`MCP_CONFIG`): servers over stdio or HTTP, `${VAR}` read from the environment.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { unknownKeys } from '../common/fields';
import { looksSecret } from '../common/secrets';

/**
 * Which MCP servers a worker may reach, in the JSON shape other MCP clients use
 * (`{"mcpServers": {"name": {...}}}`): `command`/`args`/`env`/`cwd` to start a server over stdio,
 * or `url`/`headers` for one that speaks Streamable HTTP.
 */
export interface McpConfig {
  mcpServers: Record<string, McpServerConfig>;
  /**
   * The values the file took from the environment (`${VAR}`) and the values of its `headers` and of
   * `env` entries named like secrets (`*_TOKEN`, `*_KEY`, ...): what must never leave the worker.
   */
  secrets?: string[];
}

/** A server the worker starts and talks to over its stdin and stdout. */
export interface StdioServerConfig {
  command: string;
  /** Default none. */
  args?: string[];
  /** Added to a small safe set the SDK passes on (PATH, HOME…). Default none. */
  env?: Record<string, string>;
  /** Resolved against the configuration file's folder. Default the worker's working folder. */
  cwd?: string;
}

/** What every server may say, whatever its transport. */
export interface ServerPatience {
  /**
   * How long a tool call of this server goes on being sent, with backoff, while the server refuses
   * connections (a restart), before the model hears it is down. Default: the run's `receiverDownMs`.
   */
  receiverDownMs?: number;
}

/** A server reached over Streamable HTTP. */
export interface HttpServerConfig {
  url: string;
  /** Sent with every request (e.g. `Authorization`). Default none. */
  headers?: Record<string, string>;
}

export type McpServerConfig = (StdioServerConfig | HttpServerConfig) & ServerPatience;

/** Thrown when an MCP configuration cannot be read or does not have the expected shape. */
export class McpConfigError extends Error {
  constructor(
    readonly source: string,
    message: string,
  ) {
    super(`${source}: ${message}`);
    this.name = 'McpConfigError';
  }
}

const stringMap = z.record(z.string(), z.string());
const stdioSchema = z
  .object({
    type: z.literal('stdio').optional(),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    cwd: z.string().optional(),
    receiverDownMs: z.number().int().positive().optional(),
  })
  .strict();
const httpSchema = z
  .object({
    type: z.enum(['http', 'streamable-http']).optional(),
    url: z.string().url(),
    headers: stringMap.optional(),
    receiverDownMs: z.number().int().positive().optional(),
  })
  .strict();
/** Every field a server may have, of either transport: one not here is refused with the nearest. */
const SERVER_FIELDS = [...new Set([...Object.keys(stdioSchema.shape), ...Object.keys(httpSchema.shape)])];

const configSchema = z
  .object({
    mcpServers: z.record(
      z.string().regex(/^[A-Za-z0-9_.-]+$/, 'a server name may hold letters, digits, _ . -'),
      z.unknown(),
    ),
  })
  .strict();

/**
 * Replaces each `${NAME}` in `text` with the environment variable `NAME`, so a token or password
 * lives in the environment, not in the file. `where` names the field in the error for a variable
 * that is not set.
 */
function expand(text: string, env: NodeJS.ProcessEnv, source: string, where: string, found: string[]): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = env[name];
    if (value === undefined) throw new McpConfigError(source, `${where}: \${${name}} is not set in the environment`);
    found.push(value);
    return value;
  });
}

/** `${VAR}` expanded in the fields that may hold secrets or paths: `env`, `headers`, `args` and `url`. */
function expandServer(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  source: string,
  where: string,
  found: string[],
): Record<string, unknown> {
  const out = { ...raw };
  const str = (value: unknown, at: string) =>
    typeof value === 'string' ? expand(value, env, source, at, found) : value;
  for (const field of ['env', 'headers'] as const) {
    const map = raw[field];
    if (map && typeof map === 'object' && !Array.isArray(map)) {
      out[field] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, str(v, `${where}.${field}.${k}`)]));
    }
  }
  if (Array.isArray(raw.args)) out.args = raw.args.map((a, i) => str(a, `${where}.args.${i}`));
  if ('url' in raw) out.url = str(raw.url, `${where}.url`);
  return out;
}

/** `isStdio(server)`: whether the worker starts this server itself. */
export function isStdio(server: McpServerConfig): server is StdioServerConfig {
  return 'command' in server;
}

/**
 * Parses an MCP configuration. `source` names it in errors; a relative `cwd` is resolved against
 * `baseDir` (default the process's working folder); `${VAR}` in `env`, `headers`, `args` and `url`
 * comes from `env` (default the process's environment).
 */
export function parseMcpConfig(
  text: string,
  source: string,
  baseDir = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): McpConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new McpConfigError(source, `not JSON: ${(err as Error).message}`);
  }
  // A field the file may not have is named, with the nearest known name, before anything else.
  if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
    const unknown = unknownKeys(json, ['mcpServers'], 'a field of an MCP config');
    if (unknown.length > 0) throw new McpConfigError(source, unknown.join('; '));
  }
  const top = configSchema.safeParse(json);
  if (!top.success) throw new McpConfigError(source, describe(top.error, ''));
  const servers: Record<string, McpServerConfig> = {};
  const secrets: string[] = [];
  for (const [name, given] of Object.entries(top.data.mcpServers)) {
    const where = `mcpServers.${name}`;
    if (typeof given !== 'object' || given === null) throw new McpConfigError(source, `${where} must be an object`);
    const unknown = unknownKeys(given, SERVER_FIELDS, 'a field of an MCP server').map((u) => `${where}.${u}`);
    if (unknown.length > 0) throw new McpConfigError(source, unknown.join('; '));
    const raw = expandServer(given as Record<string, unknown>, env, source, where, secrets);
    const kind = (raw as { type?: unknown }).type;
    if (kind === 'sse') {
      throw new McpConfigError(
        source,
        `${where}: the SSE transport is not supported; use the server's Streamable HTTP endpoint`,
      );
    }
    if ('command' in raw && 'url' in raw)
      throw new McpConfigError(source, `${where} has both command and url; give one`);
    if ('command' in raw) {
      const parsed = stdioSchema.safeParse(raw);
      if (!parsed.success) throw new McpConfigError(source, describe(parsed.error, where));
      const { type: _type, ...server } = parsed.data;
      servers[name] = server.cwd ? { ...server, cwd: path.resolve(baseDir, server.cwd) } : server;
    } else if ('url' in raw) {
      const parsed = httpSchema.safeParse(raw);
      if (!parsed.success) throw new McpConfigError(source, describe(parsed.error, where));
      const { type: _type, ...server } = parsed.data;
      servers[name] = server;
    } else {
      throw new McpConfigError(source, `${where} needs a command (stdio) or a url (Streamable HTTP)`);
    }
    const server = servers[name];
    if (isStdio(server))
      secrets.push(
        ...Object.entries(server.env ?? {})
          .filter(([k]) => looksSecret(k))
          .map(([, v]) => v),
      );
    // A header such as `Bearer <token>`: the whole value, and the token alone.
    else
      for (const value of Object.values(server.headers ?? {}))
        secrets.push(value, ...(/^\S+\s+(\S+)$/.exec(value)?.slice(1) ?? []));
  }
  return { mcpServers: servers, secrets: [...new Set(secrets)] };
}

/** Reads and parses an MCP configuration file. */
export function loadMcpConfig(file: string): McpConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new McpConfigError(file, `cannot read it: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseMcpConfig(text, file, path.dirname(path.resolve(file)));
}

function describe(error: z.ZodError, prefix: string): string {
  return error.issues
    .map((issue) => {
      const at = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
      return at ? `${at}: ${issue.message}` : issue.message;
    })
    .join('; ');
}
