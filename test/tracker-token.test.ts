// The worker's tracker token goes to the worker's own tracker only: a run's input may name another
// tracker (the sweep does), and a workflow input must never be able to lead the token elsewhere.
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../activities';
import { openAiModel } from '../activities/model';
import type { ToolRequest } from '../workflows/types';
import { listeningTracker } from './helpers/tracker';

test("the worker sends TRACKER_TOKEN to its own tracker, and to no tracker a run's input names", async () => {
  const token = 'worker-tracker-token';
  const [own, other] = await Promise.all([listeningTracker({ token }), listeningTracker({ token })]);
  try {
    const activities = createActivities({
      trackerUrl: own.url,
      trackerToken: token,
      model: openAiModel({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'unused', model: 'unused' }),
    });
    const req: ToolRequest = {
      runId: 'r',
      callId: 'c1',
      tool: 'create_issue',
      args: { title: 't', body: 'b' },
      repo: 'tok',
      sendKey: true,
    };
    const env = new MockActivityEnvironment();
    await env.run(activities.runTool, req);
    await env.run(activities.runTool, { ...req, callId: 'c2', trackerUrl: own.url }); // the same tracker, named
    expect(own.store.counts('tok')).toEqual({ issues: 2, comments: 0 });
    await expect(env.run(activities.runTool, { ...req, callId: 'c3', trackerUrl: other.url })).rejects.toThrow(/401/);
    expect(other.store.counts('tok')).toEqual({ issues: 0, comments: 0 });
  } finally {
    await own.close();
    await other.close();
  }
});
