// A TCP port for a server that starts later: below the kernel's range of ephemeral ports, so no
// outgoing connection of any process on the machine can take it meanwhile as its own local port.
import { readFileSync } from 'node:fs';
import net from 'node:net';

/** The lowest port the kernel hands out for outgoing connections and `listen(0)` (32768 by default). */
function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return Number.isInteger(low) && low > 4096 ? low : 32768;
  } catch {
    return 32768; // not Linux: Linux's default
  }
}

function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * A port nothing listens on now, from the 12,000 just below the ephemeral range. A port picked by
 * `listen(0)` and freed is in that range: while its server is not yet up (or is down, between a kill
 * and its restart), a client socket may take it as its local port, and the server's listen fails
 * with EADDRINUSE. Here only another server picking the same port can take it.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const high = ephemeralLow() - 1;
  const low = Math.max(1024, high - 12_000);
  for (let tries = 0; tries < 200; tries++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await canListen(port, host)) return port;
  }
  throw new Error(`no free port between ${low} and ${high} on ${host}`);
}

/** Whether something accepts TCP connections on `port` of 127.0.0.1. */
export function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Resolves once something listens on `port` of 127.0.0.1; throws after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await canConnect(port)) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
