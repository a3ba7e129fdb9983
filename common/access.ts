// Who may make our services act: bearer tokens and loopback names, shared by the tracker and the MCP server.
import { createHash, timingSafeEqual } from 'node:crypto';

/** Whether an `Authorization` header carries `Bearer <token>`, compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return false;
  // Digests of equal length, so the comparison takes the same time whatever was sent.
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(match[1]), digest(token));
}

/** The names by which a process on this machine reaches a service bound to loopback. */
export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'] as const;

/** Whether a `--host` to bind to is a loopback address (reachable from this machine only). */
export function isLoopbackBind(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Refuses to serve on a non-loopback address with no token: anyone who can reach the port could make
 * the service act. `insecure` insists (a trusted network, a proxy in front that authenticates).
 */
export function checkExposure(
  service: string,
  host: string,
  token: string | undefined,
  insecure: boolean,
): string | null {
  if (token || insecure || isLoopbackBind(host)) return null;
  return (
    `${service} refuses to listen on ${host} without a token: anyone who can reach it could make it act. ` +
    'Give --token (or set the environment variable), or add --insecure if something in front of it authenticates'
  );
}
