// The tracker's tools were once built into the loop, for runs that named no tools. A run must name its
// tools now: the client refuses one that names none, and the loop's activities serve no built-in
// tool, so nothing reaches any tracker. (The triage example has the same tools, registered:
// test/triage-tools.test.ts; a run refused where it enters: test/library.e2e.test.ts.)
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../activities';
import { openAiModel } from '../activities/model';
import type { ToolRequest } from '../workflows/types';
import { toolsProblem } from '../workflows/run-input';
import { testLog } from './helpers/worker-logs';

test('a tool call that is neither a registered tool nor an MCP tool is refused, and no request is sent', async () => {
  const activities = createActivities({
    model: openAiModel({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'unused', model: 'unused' }),
  });
  const req: ToolRequest = { runId: 'r', callId: 'c1', tool: 'create_issue', args: { title: 't' }, sendKey: true };
  const env = new MockActivityEnvironment({}, { logger: testLog });
  for (const activity of [activities.runTool, activities.lookupCall])
    await expect(env.run(activity, req)).rejects.toMatchObject({
      type: 'NoBuiltInTools',
      nonRetryable: true,
      message: expect.stringMatching(/^create_issue is one of the tracker's tools once built into the loop/),
    });
});

test('a run names tools, MCP servers or both; one with neither is refused with the reason', () => {
  expect(toolsProblem({})).toMatch(/the run names no tools: give it tools .* or mcpServers/);
  expect(toolsProblem({ tools: [], mcpServers: [] })).not.toBeNull();
  expect(toolsProblem({ tools: ['send_email'] })).toBeNull();
  expect(toolsProblem({ mcpServers: ['mail'] })).toBeNull();
});
