// Who may call a server of ours over HTTP: Host and Origin checks against DNS rebinding, and an optional token.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { bearerMatches, isLoopbackBind, LOOPBACK_NAMES } from './access';
import { commaList } from './cli';

/** Who may call a server over HTTP. */
export interface HttpPolicy {
  /** Host names (no port) the `Host` header may carry. Default the loopback names. */
  hosts: string[];
  /** Origins (`scheme://host[:port]`) a browser page may call from, besides those on a loopback name. */
  origins: string[];
  /** Require `Authorization: Bearer <token>`. Default none. */
  token?: string;
}

/** A refusal: the status and the message for the caller. */
export interface Refusal {
  status: 401 | 403;
  message: string;
}

/** The policy of a server on loopback, plus the names and origins given. */
export function httpPolicy(extraHosts: string[] = [], origins: string[] = [], token?: string): HttpPolicy {
  return { hosts: [...LOOPBACK_NAMES, ...extraHosts], origins, token };
}

/** The names and origins a server answers to: what it binds to (a named interface), plus `--allow-host`. */
export type HostPolicy = Omit<HttpPolicy, 'token'>;

/**
 * The host policy of a server started with `--host bindHost`: the loopback names, the bound name when
 * it is one (not a wildcard), and the names and origins given by flag.
 */
export function boundHostPolicy(bindHost: string, allowHosts: string[] = [], origins: string[] = []): HostPolicy {
  const wildcard = isLoopbackBind(bindHost) || bindHost === '0.0.0.0' || bindHost === '::';
  return httpPolicy([...(wildcard ? [] : [bindHost]), ...allowHosts], origins);
}

/** What a server binds to unless `--host` says otherwise: loopback only. */
const LOOPBACK_BIND = '127.0.0.1';

/** The usage text of {@link networkFlags}. */
export const NETWORK_USAGE = '[--host H] [--allow-host NAME,...] [--allow-origin URL,...]';

/**
 * The network flags every server here takes, for its command line (`parseCommandLine`): `--host`
 * (what it binds to, default loopback), `--allow-host` and `--allow-origin` (comma lists; the
 * origins `originsByDefault` unless given). {@link networkPolicyOf} reads them.
 */
export function networkFlags(originsByDefault = '') {
  return {
    host: { type: 'string', default: LOOPBACK_BIND },
    'allow-host': { type: 'string', default: '' },
    'allow-origin': { type: 'string', default: originsByDefault },
  } as const;
}

/** What a server started with {@link networkFlags} binds to, and the names and origins it answers to. */
export function networkPolicyOf(values: { host?: string; 'allow-host'?: string; 'allow-origin'?: string }): {
  bind: string;
  hosts: HostPolicy;
} {
  const bind = values.host ?? LOOPBACK_BIND;
  return { bind, hosts: boundHostPolicy(bind, commaList(values['allow-host']), commaList(values['allow-origin'])) };
}

/**
 * Refuses, with 403 and before any route runs, every request to a Fastify app whose `Host` or
 * `Origin` the policy does not allow (`hostRefusal`): a page rebinding its name reaches nothing.
 */
export function guardHosts(app: FastifyInstance, policy: HostPolicy): void {
  app.addHook('onRequest', async (req, reply) => {
    const refusal = hostRefusal(req.headers, policy);
    if (refusal) return reply.code(refusal.status).send({ error: 'forbidden_host', message: refusal.message });
  });
}

function hostnameOf(hostAndPort: string): string | null {
  try {
    return new URL(`http://${hostAndPort}`).hostname;
  } catch {
    return null;
  }
}

/**
 * Whether a request may reach a server at all, from its `Host` and `Origin` headers. A web page that
 * rebinds its own name to 127.0.0.1 sends its name as `Host` and its origin as `Origin`: both are
 * checked against what this server answers to (the MCP specification's DNS-rebinding rule), so such
 * a page reaches nothing, with or without a token. Clients that are not browsers send no `Origin`.
 */
export function hostRefusal(headers: IncomingHttpHeaders, policy: Omit<HttpPolicy, 'token'>): Refusal | null {
  const host = hostnameOf(headers.host ?? '');
  if (!host || !policy.hosts.includes(host)) {
    return {
      status: 403,
      message: `Host ${JSON.stringify(headers.host ?? '')} is not one this server answers to (allowed: ${policy.hosts.join(', ')}; add with --allow-host)`,
    };
  }
  const origin = headers.origin;
  if (origin !== undefined) {
    let allowed = policy.origins.includes(origin);
    try {
      const url = new URL(origin);
      allowed ||=
        (url.protocol === 'http:' || url.protocol === 'https:') &&
        (LOOPBACK_NAMES as readonly string[]).includes(url.hostname);
    } catch {
      allowed = false;
    }
    if (!allowed)
      return {
        status: 403,
        message: `Origin ${JSON.stringify(origin)} may not call this server (add with --allow-origin)`,
      };
  }
  return null;
}

/**
 * Whether a request may reach the MCP server's tools, decided from its headers before anything runs:
 * `hostRefusal`, then the token, if one is required.
 */
export function guardRequest(headers: IncomingHttpHeaders, policy: HttpPolicy): Refusal | null {
  const refusal = hostRefusal(headers, policy);
  if (refusal) return refusal;
  if (policy.token && !bearerMatches(headers.authorization, policy.token)) {
    return { status: 401, message: 'this MCP server requires a token: Authorization: Bearer <MCP_TOKEN>' };
  }
  return null;
}
