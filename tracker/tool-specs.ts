// The tracker's tools as a model sees them (name, description, argument schema) and what each does to
// the tracker: the triage example's tools, the tracker's MCP server and the sweep's designs take them
// from here. Pure data, with no import: safe in workflow code (the lint lets workflow code import it).

/** One argument's JSON Schema: the few kinds the tracker's tools take, with the tracker's limits. */
export type ArgSchema =
  | { type: 'string'; description?: string; minLength?: number; maxLength: number }
  | { type: 'integer'; description?: string; minimum?: number }
  | { type: 'array'; description?: string; maxItems: number; items: ArgSchema };

/**
 * One of the tracker's tools as a model sees it, and its effect on the tracker. Its `parameters` are
 * the one description of its arguments: the MCP server's input schema, the tools' check of what a
 * model sent, and the tracker's route checks are all made from them (`tool-args.ts`).
 */
export interface TrackerToolSpec {
  name: 'create_issue' | 'comment_on_issue' | 'search_issues';
  description: string;
  /** JSON Schema of the arguments: an object. */
  parameters: { type: 'object'; properties: Record<string, ArgSchema>; required: string[] };
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
        title: { type: 'string', description: 'One-line summary.', minLength: 1, maxLength: 256 },
        body: { type: 'string', description: 'What happened, and how to reproduce it.', maxLength: 65_536 },
        labels: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 50 } },
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
      properties: {
        number: { type: 'integer', minimum: 1 },
        body: { type: 'string', minLength: 1, maxLength: 65_536 },
      },
      required: ['number', 'body'],
    },
    effect: 'keyed',
  },
  {
    name: 'search_issues',
    description: 'Find issues whose title, body or comments contain the query text.',
    parameters: { type: 'object', properties: { query: { type: 'string', maxLength: 1024 } }, required: ['query'] },
    effect: 'read-only',
  },
];
