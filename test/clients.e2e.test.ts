import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ROOT } from './helpers/processes';
import { eventually } from './helpers/runs';
import { useSystemWithWorker } from './helpers/system';

const run = promisify(execFile);
const TASK_QUEUE = 'clients-e2e';
const system = useSystemWithWorker(TASK_QUEUE);

/** Runs a client command as a user would, returning its exit code and output. */
async function cli(script: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', `clients/${script}.ts`, ...args], {
      cwd: ROOT,
      env: { ...process.env, TEMPORAL_ADDRESS: system().env.address, TASK_QUEUE, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('command-line clients against a real dev server', () => {
  test('start, status, approve and deny drive a run with an approval gate to its end', async () => {
    const started = await cli('start', ['--task', 'coupon bug', '--repo', 'cli-approve', '--approve', 'create_issue']);
    expect(started.code).toBe(0);
    const workflowId = started.stdout.trim();
    expect(workflowId).toMatch(/^triage-[0-9a-f-]{36}$/);

    const status = await eventually(async () => {
      const s = await cli('status', [workflowId]);
      return s.stdout.includes('waiting for approval: call_create_1') && s;
    });
    expect(status.code).toBe(0);

    const wrong = await cli('approve', [workflowId, 'call_create_2']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim()).toBe(`call call_create_2 of ${workflowId} is not waiting for approval (waiting: call_create_1)`);

    expect((await cli('approve', [workflowId, 'call_create_1'])).stdout).toContain('approved call_create_1');
    await eventually(async () => (await cli('status', [workflowId])).stdout.includes('waiting for approval: call_create_2'));
    const denied = await cli('approve', [workflowId, 'call_create_2', '--deny', '--reason', 'not now']);
    expect(denied.code).toBe(0);

    const final = await eventually(async () => {
      const s = await cli('status', [workflowId, '--json']);
      const parsed = JSON.parse(s.stdout) as { status: string; calls: Array<{ callId: string; status: string; result?: string }> };
      return parsed.status === 'COMPLETED' && parsed;
    });
    expect(final.calls.find((c) => c.callId === 'call_create_2')).toMatchObject({ status: 'denied', result: expect.stringMatching(/: not now$/) });
    expect(system().trackers.keyed.store.counts('cli-approve')).toEqual({ issues: 1, comments: 1 });
  });

  test('start --wait prints the result as JSON', async () => {
    const res = await cli('start', ['--task', 'coupon bug', '--repo', 'cli-wait', '--wait']);
    expect(res.code).toBe(0);
    const [, ...json] = res.stdout.split('\n');
    const result = JSON.parse(json.join('\n')) as { answer: string; questionsAsked: number; rungs: Record<string, string> };
    expect(result.answer).toMatch(/^Triage done. Filed #1 and #2/);
    expect(result.questionsAsked).toBe(0);
    expect(Object.values(result.rungs)).toEqual(['clean', 'clean', 'clean', 'clean']);
  });

  test('each client prints one clear line and exits non-zero for an unknown workflow, unknown call, bad flags or no server', async () => {
    const unknown = await cli('status', ['triage-nope']);
    expect(unknown).toMatchObject({ code: 1, stderr: 'no agent run with workflow id triage-nope\n' });
    const noQuestion = await cli('resolve', ['triage-nope', 'call_x', '--happened']);
    expect(noQuestion.stderr).toBe('no agent run with workflow id triage-nope\n');
    const both = await cli('resolve', ['w', 'c', '--happened', '--not-happened']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/exactly one of --happened, --not-happened/);
    const badTool = await cli('start', ['--task', 't', '--approve', 'delete_repo']);
    expect(badTool.code).toBe(2);
    expect(badTool.stderr).toMatch(/unknown tool delete_repo/);
    const down = await cli('status', ['triage-x'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^cannot reach Temporal at 127.0.0.1:1 \(set TEMPORAL_ADDRESS\)/);
  });
});
