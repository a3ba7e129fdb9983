// `npm run start`: starts a triage run with a fresh run id, and with `--wait` prints its result.
// A client of the package's own: `crash-safe-agent/client` and the triage tools' names.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { parseDuration, startAgentRun, withClient } from '../../lib/client';
import type { AgentInput } from '../../lib/workflow';
import { TRIAGE_INSTRUCTIONS, TRIAGE_TOOL_NAMES } from './tools';

const USAGE =
  'npm run start -- --task TEXT [--repo NAME] [--keyless] [--no-lookup] [--approve TOOL,...] [--approval-timeout DURATION] [--mcp SERVER,...] [--wait]';

/** A command line that cannot be understood: printed with the usage line, exit code 2. */
class UsageError extends Error {}

/** The items of a comma-separated flag (`a, b,,c` is `a`, `b`, `c`). */
const commaList = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

/** The run's static details (Markdown, shown by the Web UI): what it was started with. */
function runDetails(input: AgentInput): string {
  return [
    `**Run id** \`${input.runId}\` (every call's idempotency key is made from it)`,
    `**Repository** ${String(input.context?.repo)}${input.keyless ? ', keyless tracker' : ''}${input.lookup ? '' : ', no lookups'}`,
    ...(input.approve?.length ? [`**Needs approval** ${input.approve.join(', ')}`] : []),
    ...(input.mcpServers?.length ? [`**MCP servers** ${input.mcpServers.join(', ')}`] : []),
  ].join('\n\n');
}

/** The run the command line asks for, with a fresh run id. */
function inputFrom(argv: string[]): { input: AgentInput; wait: boolean } {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        task: { type: 'string' },
        repo: { type: 'string', default: 'demo' },
        keyless: { type: 'boolean', default: false },
        'no-lookup': { type: 'boolean', default: false },
        approve: { type: 'string', default: '' },
        'approval-timeout': { type: 'string' },
        mcp: { type: 'string', default: '' },
        wait: { type: 'boolean', default: false },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (!values.task) throw new UsageError('--task is required: what the agent should do');
  const approve = commaList(values.approve);
  const mcpServers = commaList(values.mcp);
  // The tools of MCP servers are known only to the worker, so their names are not checked here.
  const unknown = approve.filter((t) => !TRIAGE_TOOL_NAMES.includes(t));
  if (unknown.length > 0 && mcpServers.length === 0)
    throw new UsageError(`unknown tool ${unknown.join(', ')} in --approve (tools: ${TRIAGE_TOOL_NAMES.join(', ')})`);
  let approvalTimeoutMs: number | undefined;
  if (values['approval-timeout'] !== undefined) {
    try {
      approvalTimeoutMs = parseDuration(values['approval-timeout']);
    } catch (err) {
      throw new UsageError(`bad --approval-timeout: ${(err as Error).message}`);
    }
  }
  const input: AgentInput = {
    // Fresh for every run and never reused: each call's idempotency key is made from it.
    runId: randomUUID(),
    task: values.task,
    instructions: TRIAGE_INSTRUCTIONS,
    // The triage tools, registered on the worker (`npm run worker`), acting on the run's repository;
    // with --mcp, the tools of those MCP servers instead, whose `repo` argument the run fills in from its context.
    ...(mcpServers.length > 0 ? { mcpServers } : { tools: TRIAGE_TOOL_NAMES }),
    context: { repo: values.repo! },
    keyless: values.keyless,
    lookup: !values['no-lookup'],
    approve,
    ...(approvalTimeoutMs !== undefined ? { approvalTimeoutMs } : {}),
  };
  return { input, wait: values.wait! };
}

async function main(): Promise<void> {
  const { input, wait } = inputFrom(process.argv.slice(2));
  // Connects to TEMPORAL_ADDRESS (with the payload codec when TEMPORAL_PAYLOAD_KEY is set).
  await withClient(async ({ client, taskQueue }) => {
    const handle = await startAgentRun(client, {
      ...input,
      taskQueue,
      workflowId: `triage-${input.runId}`,
      // What the Web UI shows for the run: its task, and how it was started.
      staticDetails: runDetails(input),
    });
    console.log(handle.workflowId);
    if (wait) console.log(JSON.stringify(await handle.result(), null, 2));
  });
}

main().catch((err: Error) => {
  console.error(err instanceof UsageError ? `${err.message}\nusage: ${USAGE}` : err.message);
  process.exitCode = err instanceof UsageError ? 2 : 1;
});
