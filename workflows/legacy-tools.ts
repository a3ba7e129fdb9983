// The tools a run had when it named none: kept for the histories of runs started before, which replay with them.
import type { ToolSpec } from './tools';

/**
 * The patch after which a run must name its tools (`tools` or `mcpServers`); a run started before it
 * that named none had the tracker's tools built into the loop.
 */
export const NAMED_TOOLS_PATCH = 'runs-name-their-tools';

/**
 * The tracker's tools as they were built into the loop, for replay only: a run that named neither
 * `tools` nor `mcpServers` had these. A run does not any more (`NAMED_TOOLS_PATCH`); a history of one
 * started before still replays with them. A replay reads of a tool only its name, its effect and
 * whether it takes arguments (`parseArguments`), so that is what is kept, frozen whatever the
 * tracker's tools become: each argument's type, no more of the schema the model saw. Their calls went
 * to the tracker by the run's `repo` and `trackerUrl`, which the loop's activities no longer do: such a
 * run still under way must finish on a worker of the version that started it.
 */
const FROZEN_TRACKER_TOOLS: ReadonlyArray<{
  name: string;
  description: string;
  effect: 'keyed' | 'read-only';
  args: Record<string, string>;
  required: string[];
}> = [
  {
    name: 'create_issue',
    description: 'File a new issue in the tracker. Returns the issue with its number.',
    effect: 'keyed',
    args: { title: 'string', body: 'string', labels: 'array' },
    required: ['title', 'body'],
  },
  {
    name: 'comment_on_issue',
    description: 'Add a comment to an existing issue, by its number.',
    effect: 'keyed',
    args: { number: 'integer', body: 'string' },
    required: ['number', 'body'],
  },
  {
    name: 'search_issues',
    description: 'Find issues whose title, body or comments contain the query text.',
    effect: 'read-only',
    args: { query: 'string' },
    required: ['query'],
  },
];

/** The frozen tracker tools as the loop's tool specs. */
export const BUILT_IN_TRACKER_TOOLS: readonly ToolSpec[] = FROZEN_TRACKER_TOOLS.map((t) => ({
  name: t.name,
  description: t.description,
  parameters: {
    type: 'object',
    properties: Object.fromEntries(Object.entries(t.args).map(([arg, type]) => [arg, { type }])),
    required: t.required,
  },
  readOnly: t.effect === 'read-only',
  idempotent: t.effect === 'read-only',
  sendsKey: t.effect === 'keyed',
  lookup: t.effect === 'keyed',
  needsApproval: false,
}));
