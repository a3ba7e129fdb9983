// The tools a run had when it named none: kept for the histories of runs started before, which replay with them.
import type { ToolSpec } from './tools';

/**
 * The patch after which a run must name its tools (`tools` or `mcpServers`); a run started before it
 * that named none had the tracker's tools built into the loop.
 */
export const NAMED_TOOLS_PATCH = 'runs-name-their-tools';

/**
 * The tracker's tools as they were when built into the loop, frozen: a run that named neither `tools`
 * nor `mcpServers` had these. A run does not any more (`NAMED_TOOLS_PATCH`); a history of one started
 * before still replays with them, and its replay checks the model's arguments against these schemas,
 * so they stay as they were whatever the tracker's tools become. Their calls went to the tracker by the
 * run's `repo` and `trackerUrl`, which the loop's activities no longer do: such a run still under way
 * must finish on a worker of the version that started it.
 */
const FROZEN_TRACKER_TOOLS: ReadonlyArray<
  Pick<ToolSpec, 'name' | 'description' | 'parameters'> & { effect: 'keyed' | 'read-only' }
> = [
  {
    name: 'create_issue',
    description: 'File a new issue in the tracker. Returns the issue with its number.',
    parameters: {
      type: 'object',
      properties: {
        title: { type: 'string', description: 'One-line summary.' },
        body: { type: 'string', description: 'What happened, and how to reproduce it.' },
        labels: { type: 'array', items: { type: 'string' } },
      },
      required: ['title', 'body'],
    },
    effect: 'keyed',
  },
  {
    name: 'comment_on_issue',
    description: 'Add a comment to an existing issue, by its number.',
    parameters: {
      type: 'object',
      properties: { number: { type: 'integer' }, body: { type: 'string' } },
      required: ['number', 'body'],
    },
    effect: 'keyed',
  },
  {
    name: 'search_issues',
    description: 'Find issues whose title, body or comments contain the query text.',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    effect: 'read-only',
  },
];

/** The frozen tracker tools as the loop's tool specs. */
export const BUILT_IN_TRACKER_TOOLS: readonly ToolSpec[] = FROZEN_TRACKER_TOOLS.map((t) => ({
  name: t.name,
  description: t.description,
  parameters: t.parameters,
  readOnly: t.effect === 'read-only',
  idempotent: t.effect === 'read-only',
  sendsKey: t.effect === 'keyed',
  lookup: t.effect === 'keyed',
  needsApproval: false,
}));
