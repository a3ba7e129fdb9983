// `npm run start`: starts an agent run with a fresh run id, and with `--wait` prints its result.
import { randomUUID } from 'node:crypto';
import { commaList, parseCommandLine, runMain, UsageError } from '../common/cli';
import { parseDuration } from '../common/duration';
import { TRIAGE_INSTRUCTIONS, TRIAGE_TOOL_NAMES } from '../examples/triage/tools';
import type { AgentInput } from '../workflows/types';
import { startAgentRun } from './agent-client';
import { withClient } from './connect';

const USAGE =
  'npm run start -- --task TEXT [--repo NAME] [--keyless] [--no-lookup] [--approve TOOL,...] [--approval-timeout DURATION] [--mcp SERVER,...] [--wait]';

/** The run's static details (Markdown, shown by the Web UI): what it was started with. */
function runDetails(input: AgentInput): string {
  return [
    `**Run id** \`${input.runId}\` (every call's idempotency key is made from it)`,
    `**Repository** ${String(input.context?.repo)}${input.keyless ? ', keyless tracker' : ''}${input.lookup ? '' : ', no lookups'}`,
    ...(input.approve?.length ? [`**Needs approval** ${input.approve.join(', ')}`] : []),
    ...(input.mcpServers?.length ? [`**MCP servers** ${input.mcpServers.join(', ')}`] : []),
  ].join('\n\n');
}

/**
 * `npm run start`: starts one agent run with a fresh run id and prints its workflow id; with
 * `--wait`, prints the run's result as JSON once it ends.
 */
async function main(): Promise<void> {
  const { values } = parseCommandLine(
    process.argv.slice(2),
    {
      task: { type: 'string' },
      repo: { type: 'string', default: 'demo' },
      keyless: { type: 'boolean', default: false },
      'no-lookup': { type: 'boolean', default: false },
      approve: { type: 'string', default: '' },
      'approval-timeout': { type: 'string' },
      mcp: { type: 'string', default: '' },
      wait: { type: 'boolean', default: false },
    },
    USAGE,
  );
  if (!values.task) throw new UsageError('--task is required: what the agent should do', USAGE);
  const approve = commaList(values.approve);
  const mcpServers = commaList(values.mcp);
  const known = TRIAGE_TOOL_NAMES;
  const unknown = approve.filter((t) => !known.includes(t));
  // The tools of MCP servers are known only to the worker, so their names are not checked here.
  if (unknown.length > 0 && mcpServers.length === 0) {
    throw new UsageError(`unknown tool ${unknown.join(', ')} in --approve (tools: ${known.join(', ')})`, USAGE);
  }

  let approvalTimeoutMs: number | undefined;
  if (values['approval-timeout'] !== undefined) {
    try {
      approvalTimeoutMs = parseDuration(values['approval-timeout']);
    } catch (err) {
      throw new UsageError(`bad --approval-timeout: ${(err as Error).message}`, USAGE);
    }
  }

  // Fresh for every run and never reused: each call's idempotency key is made from it.
  const runId = randomUUID();
  const input: AgentInput = {
    runId,
    task: values.task,
    instructions: TRIAGE_INSTRUCTIONS,
    // The triage example's tools, registered on the worker (`npm run worker`), acting on the run's repository;
    // with --mcp, the tools of those MCP servers instead, whose `repo` argument the run fills in from its context.
    ...(mcpServers.length > 0 ? { mcpServers } : { tools: TRIAGE_TOOL_NAMES }),
    context: { repo: values.repo! },
    keyless: values.keyless,
    lookup: !values['no-lookup'],
    approve,
    ...(approvalTimeoutMs !== undefined ? { approvalTimeoutMs } : {}),
  };
  await withClient(async ({ client, taskQueue }) => {
    const handle = await startAgentRun(client, {
      ...input,
      taskQueue,
      workflowId: `triage-${runId}`,
      // What the Web UI shows for the run: its task, and how it was started.
      staticDetails: runDetails(input),
    });
    console.log(handle.workflowId);
    if (values.wait) console.log(JSON.stringify(await handle.result(), null, 2));
  });
}

runMain(main);
