// `npm run bench:plugin`: the same agent task through the loop and through Temporal's AI SDK plugin,
// one after the other in one run, on one dev server, with the same scripted model behind the same AI
// SDK provider: per turn, the workflow tasks, the history bytes and the wall time each side costs.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { z } from 'zod/v4';
import { parseCommandLine, runMain, wholeNumbers } from '../common/cli';
import { chainHistories, historySizes } from '../common/history-events';
import { devServerExecutable } from '../common/temporal-cli';
import { aiSdkModel } from '../lib/ai-sdk';
import { startAgentRun } from '../lib/client';
import { createAgentWorker, defineTool } from '../lib/worker';
import { noteActivities, startTurnsEndpoint } from './note';

const USAGE = 'npm run bench:plugin -- [--turns 5,20] [--runs 3]';

/** The loop's tool: the same note, keyed (the loop sends its key; the note ignores it). */
const note = defineTool({
  name: 'note',
  description: 'Write a note',
  parameters: z.object({ n: z.number() }),
  effect: 'keyed',
  run: async ({ n }) => `noted ${n}`,
});

/** One side of the comparison: how a run of `turns` turns is started there. */
interface Side {
  name: string;
  start(turns: number, workflowId: string): Promise<WorkflowHandle>;
}

/** What one run cost, from its history and the clock. */
interface Measured {
  executions: number;
  tasks: number;
  bytes: number;
  ms: number;
}

/**
 * A benchmark, not a test: it prints figures and asserts nothing. Each side runs `--runs` times per
 * turn count, the sides taking turns, and the median run is shown, divided by its turns.
 */
async function main(): Promise<void> {
  const { values } = parseCommandLine(
    process.argv.slice(2),
    { turns: { type: 'string', default: '5,20' }, runs: { type: 'string', default: '3' } },
    USAGE,
  );
  const list = (text: string, flag: string) => wholeNumbers(text, flag, USAGE);
  const turnsList = list(values.turns!, 'turns');
  const [runs] = list(values.runs!, 'runs');
  Runtime.install({ logger: new DefaultLogger('ERROR') });

  const endpoint = await startTurnsEndpoint();
  const provider = createOpenAICompatible({ name: 'turns', baseURL: endpoint.url });
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: devServerExecutable(), log: { format: 'pretty', level: 'error' } },
  });
  const workers = [
    await createAgentWorker({
      connection: env.nativeConnection,
      taskQueue: 'bench-loop',
      tools: [note],
      modelProvider: aiSdkModel(provider.chatModel('turns')),
    }),
    await Worker.create({
      connection: env.nativeConnection,
      taskQueue: 'bench-plugin',
      workflowsPath: require.resolve('./plugin-agent'),
      activities: noteActivities,
      plugins: [new AiSdkPlugin({ modelProvider: provider })],
    }),
  ];
  const running = workers.map((w) => w.run());
  const client = env.client;
  const sides: Side[] = [
    {
      name: 'the loop (keys, ladder, approvals)',
      start: (turns, workflowId) =>
        startAgentRun(client, {
          taskQueue: 'bench-loop',
          workflowId,
          task: `turns ${turns}`,
          tools: ['note'],
          maxTurns: turns + 1,
          searchAttributes: false,
        }),
    },
    {
      name: 'the plugin, the sample’s way',
      start: (turns, workflowId) =>
        client.workflow.start('pluginAgent', {
          taskQueue: 'bench-plugin',
          workflowId,
          args: [`turns ${turns}`, turns],
        }),
    },
    {
      name: 'the plugin, toolActivities',
      start: (turns, workflowId) =>
        client.workflow.start('pluginAgentSafe', {
          taskQueue: 'bench-plugin',
          workflowId,
          args: [`turns ${turns}`, turns],
        }),
    },
  ];
  const lines = [
    ['side', 'turns', 'runs', 'executions', 'tasks/turn', 'history bytes/turn', 'ms/turn', 'ms per run'].join('\t'),
  ];
  try {
    // A warm-up run of each side, not counted: the bundles, the connections, the AI SDK's modules.
    for (const side of sides) await measure(client, side, 1, `warm-${sides.indexOf(side)}-${Date.now()}`);
    for (const turns of turnsList) {
      const results = new Map<Side, Measured[]>(sides.map((s) => [s, []]));
      for (let i = 0; i < runs; i++)
        for (const side of sides) {
          console.error(`${side.name}: ${turns} turns, run ${i + 1} of ${runs}...`);
          results
            .get(side)!
            .push(await measure(client, side, turns, `bench-${turns}-${i}-${sides.indexOf(side)}-${Date.now()}`));
        }
      for (const side of sides) {
        const median = [...results.get(side)!].sort((a, b) => a.ms - b.ms)[Math.floor(runs / 2)];
        lines.push(
          [
            side.name,
            turns,
            runs,
            median.executions,
            (median.tasks / turns).toFixed(2),
            Math.round(median.bytes / turns),
            (median.ms / turns).toFixed(1),
            Math.round(median.ms),
          ].join('\t'),
        );
      }
    }
  } finally {
    for (const w of workers) w.shutdown();
    await Promise.all(running);
    await env.teardown();
    await endpoint.close();
  }
  console.log(lines.join('\n'));
}

/** Runs one agent run of a side to its end and measures it from its history. */
async function measure(client: Client, side: Side, turns: number, workflowId: string): Promise<Measured> {
  const started = performance.now();
  const handle = await side.start(turns, workflowId);
  await handle.result();
  const ms = performance.now() - started;
  // The loop continues as new on long runs: every execution of the chain counts.
  const first = (handle as typeof handle & { firstExecutionRunId: string }).firstExecutionRunId;
  const histories = await chainHistories(client, handle.workflowId, first);
  return {
    executions: histories.length,
    tasks: histories.flat().filter((e) => e.workflowTaskCompletedEventAttributes).length,
    bytes: histories.map((events) => historySizes(events).bytes).reduce((a, b) => a + b, 0),
    ms,
  };
}

runMain(main);
