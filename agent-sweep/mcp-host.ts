// The sweep's MCP server processes, one per tracker: started, killed mid-call and started again on their port.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { McpCrashPlan } from './mcp-main';
import { ReceiverHost } from '../sweep/hosts/receiver-host';

const ROOT = path.resolve(__dirname, '..');

/** The names of the sweep's two MCP servers, one per tracker, in the workers' MCP configuration. */
export const MCP_SERVER_NAMES = { keyed: 'tracker-keyed', keyless: 'tracker-keyless' } as const;

/**
 * The sweep's MCP server for one tracker: `agent-sweep/mcp-main.ts` over Streamable HTTP, which parks
 * every write the first time the tracker accepts it (`parked` holds them by the call's key). The
 * harness SIGKILLs it when it chooses and starts the next one on the same port (see {@link ReceiverHost}).
 */
export class McpHost extends ReceiverHost {
  constructor(name: string, trackerUrl: string, dir: string) {
    const planFile = path.join(dir, `mcp-plan-${name}.json`);
    super({
      name: `the MCP server ${name}`,
      args: (port) => [
        '--import',
        'tsx',
        path.join(ROOT, 'agent-sweep', 'mcp-main.ts'),
        '--port',
        String(port),
        '--tracker',
        trackerUrl,
      ],
      env: { MCP_CRASH_PLAN: planFile, MCP_STANDBY: '1' },
      cwd: ROOT,
      listening: /listening on (http:\/\/\S+\/mcp)/,
    });
    this.serverName = name;
    const plan: McpCrashPlan = { action: 'park', stateFile: path.join(dir, `mcp-faulted-${name}.txt`) };
    // Written now, read by each process when it starts serving.
    writeFileSync(planFile, JSON.stringify(plan));
  }

  /** Its name in the workers' MCP configuration. */
  readonly serverName: string;
}
