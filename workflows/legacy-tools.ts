// The tools a run had when it named none: kept for the histories of runs started before, which replay with them.
import { TRACKER_TOOL_SPECS } from '../tracker/tool-specs';
import type { ToolSpec } from './tools';

/**
 * The patch after which a run must name its tools (`tools` or `mcpServers`); a run started before it
 * that named none had the tracker's tools built into the loop.
 */
export const NAMED_TOOLS_PATCH = 'runs-name-their-tools';

/**
 * The tracker's tools, once built into the loop: a run that named neither `tools` nor `mcpServers`
 * had these. A run does not any more (`NAMED_TOOLS_PATCH`); a history of one started before still
 * replays with them. Their calls went to the tracker by the run's `repo` and `trackerUrl`, which the
 * loop's activities no longer do: such a run still under way must finish on a worker of the version
 * that started it. The triage example has the same tools, registered (`examples/triage/tools.ts`).
 */
export const BUILT_IN_TRACKER_TOOLS: readonly ToolSpec[] = TRACKER_TOOL_SPECS.map((t) => ({
  name: t.name,
  description: t.description,
  parameters: t.parameters,
  readOnly: t.effect === 'read-only',
  idempotent: t.effect === 'read-only',
  sendsKey: t.effect === 'keyed',
  lookup: t.effect === 'keyed',
  needsApproval: false,
}));
