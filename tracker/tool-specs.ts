// The tracker's tools as a model sees them (name, description, argument schema) and what each does to
// the tracker: the triage example's tools, the tracker's MCP server and the sweep's designs take them
// from here. Pure data, with no import: safe in workflow code (the lint lets workflow code import it).

/** One of the tracker's tools as a model sees it, and its effect on the tracker. */
export interface TrackerToolSpec {
  name: 'create_issue' | 'comment_on_issue' | 'search_issues';
  description: string;
  /** JSON Schema of the arguments: an object. */
  parameters: { type: 'object'; properties: Record<string, unknown>; required: string[] };
  /** `keyed`: it writes, and the tracker honours its `Idempotency-Key`; `read-only`: a repeat is harmless. */
  effect: 'keyed' | 'read-only';
}

/** The tracker's three tools: two that write, one that reads. */
export const TRACKER_TOOL_SPECS: readonly TrackerToolSpec[] = [
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
