// The weather agent of Temporal's AI SDK sample (`toolsAgent`: `generateText` in a workflow, the model
// through the plugin's provider, each tool's `execute` an activity), with a tool that acts: it mails the
// weather. Once as the sample writes it, once with crash-safe tools, and once as the sample's `mcpAgent`
// writes it: the mail tool from an MCP server through the plugin's `TemporalMCPClient`.
import { temporalProvider, TemporalMCPClient } from '@temporalio/ai-sdk/workflow';
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { toolActivities } from '../../lib/workflow';
import type { WeatherActivities } from './activities';

const weatherInput = z.object({ location: z.string().describe('The city') });
const mailInput = z.object({ to: z.string(), subject: z.string(), body: z.string() });

/** As the sample writes it: each tool's `execute` a plain activity proxy. */
export async function toolsAgent(prompt: string): Promise<string> {
  const { getWeather, sendEmail } = proxyActivities<WeatherActivities>({ startToCloseTimeout: '1 minute' });
  const { text } = await generateText({
    model: temporalProvider.languageModel('weather-script'),
    prompt,
    tools: {
      getWeather: tool({ description: 'Get the weather for a city', inputSchema: weatherInput, execute: getWeather }),
      sendEmail: tool({ description: 'Send a mail', inputSchema: mailInput, execute: sendEmail }),
    },
    stopWhen: stepCountIs(5),
  });
  return text;
}

/**
 * The same agent with crash-safe tools: each call keyed by the run and the model's tool-call id, its
 * unknown outcome settled on the ladder; the mail service honours the key.
 */
export async function crashSafeToolsAgent(prompt: string): Promise<string> {
  const { getWeather, sendEmail } = toolActivities<WeatherActivities>({
    owner: workflowInfo().workflowId,
    startToCloseTimeout: '1 minute',
    calls: { getWeather: { effect: 'read-only' }, sendEmail: { effect: 'keyed' } },
  });
  const { text } = await generateText({
    model: temporalProvider.languageModel('weather-script'),
    prompt,
    tools: {
      getWeather: tool({ description: 'Get the weather for a city', inputSchema: weatherInput, execute: getWeather }),
      sendEmail: tool({ description: 'Send a mail', inputSchema: mailInput, execute: sendEmail }),
    },
    stopWhen: stepCountIs(5),
  });
  return text;
}

/**
 * The sample's MCP shape: the mail tool comes from an MCP server (the plugin's `mcpClientFactories`
 * names it `mail`), listed and called by the plugin's activities; the weather is an activity as above.
 */
export async function mcpAgent(prompt: string): Promise<string> {
  const { getWeather } = proxyActivities<WeatherActivities>({ startToCloseTimeout: '1 minute' });
  const mail = await new TemporalMCPClient({ name: 'mail' }).tools();
  const { text } = await generateText({
    model: temporalProvider.languageModel('weather-script'),
    prompt,
    tools: {
      getWeather: tool({ description: 'Get the weather for a city', inputSchema: weatherInput, execute: getWeather }),
      ...mail,
    },
    stopWhen: stepCountIs(5),
  });
  return text;
}
