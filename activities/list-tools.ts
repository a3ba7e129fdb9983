// The `listTools` activity.
import type { ToolSpec } from '../workflows/tools';
import type { ListToolsRequest } from '../workflows/types';
import { callTimeout, heartbeating, point, registeredTools, toolbox, type ActivityConfig } from './context';
import { asActivityError, refused } from './errors';

/**
 * The run's tools, with what the ladder needs to know of each, into history: those registered on the
 * worker that the run names, then those of its MCP servers. A name given twice is refused.
 */
export function listTools(config: ActivityConfig) {
  return (req: ListToolsRequest): Promise<ToolSpec[]> =>
    heartbeating(async () => {
      let own: ToolSpec[];
      try {
        own = (req.tools ?? []).map((name) => registeredTools(config).get(name).spec);
      } catch (err) {
        throw asActivityError(err, false);
      }
      // A context the worker's tools refuse (a receiver it was not configured for) fails the run before anything runs.
      const badContext = req.tools?.length
        ? registeredTools(config).contextProblem(req.tools, req.context ?? {})
        : null;
      if (badContext) throw refused(`the run's context is refused: ${badContext}`, 'BadInput');
      const served = req.servers.length
        ? await toolbox(config).listTools(req.servers, callTimeout(), req.contextKeys)
        : [];
      const specs = [...own];
      for (const spec of served) {
        if (specs.some((s) => s.name === spec.name))
          throw refused(
            `MCP server ${spec.server} has a tool named ${spec.name}, as a registered tool is`,
            'ToolNameClash',
          );
        specs.push(spec);
      }
      // The servers' names stay out of the point's detail: it names the step, whichever servers a run uses.
      const servers = `${req.servers.length} server${req.servers.length === 1 ? '' : 's'}`;
      await point('tools.listed', req.tools?.length ? `${own.length} registered, ${servers}` : servers);
      return specs;
    });
}
