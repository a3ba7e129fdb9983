// The `listTools` activity.
import type { ToolSpec } from '../workflows/tools';
import type { ListToolsRequest } from '../workflows/types';
import { callTimeout, heartbeating, point, toolbox, type ActivityConfig } from './context';

/** The tools of the run's MCP servers, with what the ladder needs to know of each, into history. */
export function listTools(config: ActivityConfig) {
  return (req: ListToolsRequest): Promise<ToolSpec[]> =>
    heartbeating(async () => {
      const specs = await toolbox(config).listTools(req.servers, callTimeout());
      // The servers' names stay out of the point's detail: it names the step, whichever servers a run uses.
      await point('tools.listed', `${req.servers.length} server${req.servers.length === 1 ? '' : 's'}`);
      return specs;
    });
}
