import type { Design } from '../workflows/designs';
import type { RunTimeouts } from '../workflows/types';
import { MCP_SERVER_NAMES } from './mcp-host';
import type { SuiteRow } from './suite';
import { SWEEP_MCP_TIMEOUTS } from './tuning';

/** What every run of a variant gets from the sweep. */
export interface RunBase {
  runId: string;
  repo: string;
  task: string;
  trackerUrl: string;
  timeouts: RunTimeouts;
}

/** One row of the agent suite's table: a loop, its tracker, and what the scripted world does to it. */
export interface Variant extends SuiteRow {
  workflowType: 'agentWorkflow' | 'designWorkflow';
  /** Whether its tracker honours idempotency keys. */
  tracker: 'keyed' | 'keyless';
  input(base: RunBase): unknown;
  /**
   * The tools are reached over the world's MCP server for the variant's tracker, which the harness
   * SIGKILLs once per write, after the tracker accepted it (so a clean run retries: `retries`).
   */
  mcp?: boolean;
}

const design = (name: Design, label: string, tracker: Variant['tracker']): Variant => ({
  name,
  label,
  workflowType: 'designWorkflow',
  tracker,
  input: (base) => ({ ...base, design: name }),
});

/** Every variant, in table order: the five designs, then the agent loop and its harder cases. */
export const VARIANTS: readonly Variant[] = [
  design('turn', 'save once per turn', 'keyless'),
  design('reply', 'save after the reply', 'keyless'),
  design('keys', '+ idempotency keys', 'keyed'),
  design('markers', '+ attempt markers, no keys', 'keyless'),
  design('keys-markers', 'keys and markers', 'keyed'),
  {
    name: 'agent',
    label: 'agent loop, keyed tracker',
    workflowType: 'agentWorkflow',
    tracker: 'keyed',
    input: (base) => ({ ...base }),
  },
  {
    name: 'agent-keyless-lookup',
    label: 'agent loop, keyless + lookup',
    workflowType: 'agentWorkflow',
    tracker: 'keyless',
    input: (base) => ({ ...base, keyless: true, lookup: true }),
  },
  {
    name: 'agent-keyless',
    label: 'agent loop, keyless, no lookup',
    workflowType: 'agentWorkflow',
    tracker: 'keyless',
    input: (base) => ({ ...base, keyless: true, lookup: false }),
  },
  {
    name: 'agent-mid-call',
    label: 'agent loop, tool dies mid-call',
    workflowType: 'agentWorkflow',
    tracker: 'keyed',
    input: (base) => ({ ...base }),
    fault: 'tracker.accepted',
  },
  {
    name: 'agent-mcp',
    label: 'agent loop, MCP server killed mid-call',
    workflowType: 'agentWorkflow',
    tracker: 'keyed',
    input: (base) => ({ ...base, mcpServers: [MCP_SERVER_NAMES.keyed], timeouts: SWEEP_MCP_TIMEOUTS }),
    mcp: true,
    retries: true,
  },
  {
    name: 'agent-mcp-keyless-lookup',
    label: 'agent loop, MCP killed, keyless + lookup',
    workflowType: 'agentWorkflow',
    tracker: 'keyless',
    input: (base) => ({ ...base, keyless: true, lookup: true, mcpServers: [MCP_SERVER_NAMES.keyless], timeouts: SWEEP_MCP_TIMEOUTS }),
    mcp: true,
    retries: true,
  },
  {
    name: 'agent-approval',
    label: 'agent loop, approval gate',
    workflowType: 'agentWorkflow',
    tracker: 'keyed',
    input: (base) => ({ ...base, approve: ['create_issue'] }),
  },
];

/** The variants named in a comma-separated list, or all of them; an unknown name is an error that lists the known ones. */
export function selectVariants(names?: string): Variant[] {
  if (!names) return [...VARIANTS];
  return names.split(',').map((raw) => {
    const name = raw.trim();
    const v = VARIANTS.find((x) => x.name === name);
    if (!v) throw new Error(`unknown variant ${JSON.stringify(name)} (variants: ${VARIANTS.map((x) => x.name).join(', ')})`);
    return v;
  });
}
