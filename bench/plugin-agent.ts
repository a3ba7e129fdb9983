// The benchmark's agent on Temporal's AI SDK plugin: `generateText` in a workflow, the model through
// the plugin's provider, its one tool an activity, as a plain proxy or as a crash-safe tool.
import { temporalProvider } from '@temporalio/ai-sdk/workflow';
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { toolActivities } from '../lib/workflow';
import type { NoteActivities } from './note';

const noteInput = z.object({ n: z.number() });

async function agent(
  task: string,
  turns: number,
  note: (input: { n: number }, call: { toolCallId: string }) => Promise<string>,
): Promise<string> {
  const { text } = await generateText({
    model: temporalProvider.languageModel('turns'),
    prompt: task,
    tools: { note: tool({ description: 'Write a note', inputSchema: noteInput, execute: note }) },
    stopWhen: stepCountIs(turns + 1),
  });
  return text;
}

/** The sample's way: the tool's `execute` a plain activity proxy. */
export async function pluginAgent(task: string, turns: number): Promise<string> {
  const { note } = proxyActivities<NoteActivities>({ startToCloseTimeout: '1 minute' });
  return agent(task, turns, note);
}

/** Crash-safe tools: the same tool keyed by the model's tool-call id, on the ladder. */
export async function pluginAgentSafe(task: string, turns: number): Promise<string> {
  const { note } = toolActivities<NoteActivities>({
    owner: workflowInfo().workflowId,
    startToCloseTimeout: '1 minute',
    calls: { note: { effect: 'keyed' } },
  });
  return agent(task, turns, note);
}
