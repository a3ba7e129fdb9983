// The tracker's MCP server under a crash harness: dies at a write's `mcp.accepted` the first time it gets there.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { setCrashHook } from '../common/crash-points';
import { LINE_PREFIX, type CrashEvent } from '../sweep/worker/line-protocol';

/**
 * The tracker's MCP server (`mcp/server.ts`, same flags, stdio or HTTP) under a crash harness: each
 * call that reaches `mcp.accepted` (the tracker has committed it and replied) for the first time, by
 * its key, makes this process die there, as an MCP server that crashes mid-call. Which keys already
 * did is kept in a file, so a restarted server lets their retries through.
 *
 * Environment: `MCP_CRASH_PLAN`, a JSON file holding an {@link McpCrashPlan}; `MCP_STANDBY=1` to
 * load everything and then wait for a line on stdin before serving, so a harness can have the next
 * server ready before it kills the current one.
 */
export interface McpCrashPlan {
  /**
   * `die`: the process SIGKILLs itself (for a server a worker started over stdio, which the worker
   * starts again). `park`: the call is held and reported on stderr, and the harness SIGKILLs the
   * process when it chooses.
   */
  action: 'die' | 'park';
  /** Fault only calls of these tools. Default every tool that reaches the tracker with a write. */
  tools?: string[];
  /** One key per line: calls already faulted, by this process or one before it. */
  stateFile: string;
}

const planFile = process.env.MCP_CRASH_PLAN;
if (!planFile) {
  console.error('MCP_CRASH_PLAN is not set: it names the crash plan of this MCP server (see agent-sweep/mcp-main.ts)');
  process.exit(2);
}
const plan = JSON.parse(readFileSync(planFile, 'utf8')) as McpCrashPlan;
let faulted = new Set<string>();

setCrashHook((name, { detail }) => {
  const [tool, key] = detail.split(' ');
  if (name !== 'mcp.accepted' || faulted.has(key) || (plan.tools && !plan.tools.includes(tool))) return;
  faulted.add(key);
  appendFileSync(plan.stateFile, `${key}\n`);
  if (plan.action === 'die') process.kill(process.pid, 'SIGKILL');
  // The harness tells whose call is held by its key.
  const event: CrashEvent = { type: 'parked', workflowId: key, index: 0, name, detail, at: Date.now() };
  process.stderr.write(`${LINE_PREFIX}${JSON.stringify(event)}\n`);
  return new Promise<void>(() => {}); // until the harness's SIGKILL
});

function serve(): void {
  // Read when serving starts, not at launch: a standby launched earlier must see the latest faults.
  faulted = new Set(existsSync(plan.stateFile) ? readFileSync(plan.stateFile, 'utf8').split('\n').filter(Boolean) : []);
  // The server itself, with this process's hook installed: loaded now, so it starts now.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('../mcp/server');
}

if (process.env.MCP_STANDBY === '1') {
  // Loaded ahead (without starting the server), so that serving starts fast after the signal.
  /* eslint-disable @typescript-eslint/no-require-imports */
  require('../mcp/tracker-server');
  require('@modelcontextprotocol/sdk/server/streamableHttp.js');
  require('@modelcontextprotocol/sdk/server/stdio.js');
  /* eslint-enable @typescript-eslint/no-require-imports */
  process.stdin.once('data', serve);
} else {
  serve();
}
