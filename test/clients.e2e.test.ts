// The clients as a person runs them: start, approve, resolve, status, key, with and without a worker alive.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { findTemporalCli } from '../common/temporal-cli';
import { ensureSearchAttributes } from '../workers/search-attributes';
import { ROOT, scriptFile } from './helpers/processes';
import { SWEEP_TIMEOUTS } from '../agent-sweep/timeouts';
import { SWEEP_WORKFLOW_TASK_TIMEOUT } from '../sweep/engine/timeouts';
import { WAITING_MEMO } from '../workflows/signals';
import type { WaitingState } from '../workflows/types';
import { eventually, startRun } from './helpers/runs';
import { startWorkerChild, useSystemWithWorker, type WorkerChild } from './helpers/system';

const run = promisify(execFile);
const TASK_QUEUE = 'clients-e2e';
const system = useSystemWithWorker(TASK_QUEUE);

/** The workflow ids `temporal workflow list --query` finds, as a user would run it. */
async function workflowList(query: string): Promise<string[]> {
  const { stdout } = await run(findTemporalCli()!, [
    'workflow',
    'list',
    '--address',
    system().env.address,
    '--query',
    query,
    '--output',
    'json',
  ]);
  return (JSON.parse(stdout || '[]') as Array<{ execution: { workflowId: string } }>).map(
    (w) => w.execution.workflowId,
  );
}

/** Runs a client command as a user would, returning its exit code and output. */
async function cli(script: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', scriptFile(script), ...args], {
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
    expect(wrong.stderr.trim()).toBe(
      `call call_create_2 of ${workflowId} is not waiting for approval (waiting: call_create_1)`,
    );

    // A worker is there: the decision goes by Update, and the run says at once that it took it.
    expect((await cli('approve', [workflowId, 'call_create_1'])).stdout).toMatch(
      /^approved call_create_1 of \S+ \(sha256:[0-9a-f]+\); taken by the run \(decided\)$/m,
    );
    await eventually(async () =>
      (await cli('status', [workflowId])).stdout.includes('waiting for approval: call_create_2'),
    );
    const denied = await cli('approve', [workflowId, 'call_create_2', '--deny', '--reason', 'not now']);
    expect(denied.code).toBe(0);
    expect(denied.stdout).toContain('taken by the run (decided)');

    const final = await eventually(async () => {
      const s = await cli('status', [workflowId, '--json']);
      const parsed = JSON.parse(s.stdout) as {
        status: string;
        calls: Array<{ callId: string; status: string; result?: string }>;
      };
      return parsed.status === 'COMPLETED' && parsed;
    });
    expect(final.calls.find((c) => c.callId === 'call_create_2')).toMatchObject({
      status: 'denied',
      result: expect.stringMatching(/: not now$/),
    });
    expect(system().trackers.keyed.store.counts('cli-approve')).toEqual({ issues: 1, comments: 1 });
  });

  test('a worker registers the search attributes on a namespace that lacks them, and refuses one where they have another type', async () => {
    const { connection } = system().env;
    // The test system's dev server registered them at start.
    expect(await ensureSearchAttributes(connection.operatorService, 'default')).toEqual([]);
    const fresh = `sa-${Date.now()}`;
    await connection.workflowService.registerNamespace({
      namespace: fresh,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    await eventually(() =>
      connection.operatorService.listSearchAttributes({ namespace: fresh }).then(
        () => true,
        () => false,
      ),
    );
    expect(await ensureSearchAttributes(connection.operatorService, fresh)).toEqual([
      'AgentWaiting',
      'AgentPendingCalls',
    ]);
    expect(await ensureSearchAttributes(connection.operatorService, fresh)).toEqual([]);

    const wrong = `sa-wrong-${Date.now()}`;
    await connection.workflowService.registerNamespace({
      namespace: wrong,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    await eventually(() =>
      connection.operatorService.listSearchAttributes({ namespace: wrong }).then(
        () => true,
        () => false,
      ),
    );
    await connection.operatorService.addSearchAttributes({
      namespace: wrong,
      searchAttributes: { AgentWaiting: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD },
    });
    await expect(ensureSearchAttributes(connection.operatorService, wrong)).rejects.toThrow(
      new RegExp(
        `^the search attributes AgentWaiting, AgentPendingCalls \\(keyword lists\\) are not usable on namespace ${wrong}: AgentWaiting exists with another type`,
      ),
    );
  });

  test('start --wait prints the result as JSON', async () => {
    const res = await cli('start', ['--task', 'coupon bug', '--repo', 'cli-wait', '--wait']);
    expect(res.code).toBe(0);
    const [, ...json] = res.stdout.split('\n');
    const result = JSON.parse(json.join('\n')) as {
      answer: string;
      questionsAsked: number;
      rungs: Record<string, string>;
    };
    expect(result.answer).toMatch(/^Triage done. Filed #1 and #2/);
    expect(result.questionsAsked).toBe(0);
    expect(Object.values(result.rungs)).toEqual(['clean', 'clean', 'clean', 'clean']);
  });

  test("start --wait reads back a result the workers offloaded to the payload store (npm run dev's, found by DEV_DIR)", async () => {
    const devDir = mkdtempSync(path.join(tmpdir(), 'clients-dev-'));
    // As npm run dev makes it, before any client runs.
    mkdirSync(path.join(devDir, 'payloads'));
    const taskQueue = `${TASK_QUEUE}-offloaded`;
    // Every payload of 512 bytes or more goes to the store: the run's result is a reference in history.
    const worker = startWorkerChild(system(), taskQueue, undefined, {
      AGENT_PAYLOAD_DIR: path.join(devDir, 'payloads'),
      AGENT_PAYLOAD_THRESHOLD_BYTES: '512',
    });
    try {
      const res = await cli('start', ['--task', 'coupon bug', '--repo', 'cli-offloaded', '--wait'], {
        TASK_QUEUE: taskQueue,
        DEV_DIR: devDir,
      });
      expect(res.stderr).not.toMatch(/TMPRL1105/);
      expect(res.code).toBe(0);
      const [workflowId, ...json] = res.stdout.split('\n');
      expect(JSON.parse(json.join('\n')).answer).toMatch(/^Triage done. Filed #1 and #2/);
      // The result was offloaded: history holds a reference, the store the payload.
      expect(readdirSync(path.join(devDir, 'payloads', encodeURIComponent(workflowId!))).length).toBeGreaterThan(0);
      const status = await cli('status', [workflowId!], { DEV_DIR: devDir });
      expect(status.code).toBe(0);
      expect(status.stdout).toMatch(/: completed/);
    } finally {
      await worker.kill();
      rmSync(devDir, { recursive: true, force: true });
    }
  }, 120_000);

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

  test("with every worker dead, a person still approves and answers: the clients read the run's memo, and the run goes on once a worker is back", async () => {
    const taskQueue = 'clients-no-worker';
    const children: WorkerChild[] = [];
    const cliOn = (script: string, args: string[]) => cli(script, args, { TASK_QUEUE: taskQueue });
    try {
      // Keyless, no lookup: a kill after the tracker took create_issue leaves a question for a person.
      const { handle } = await startRun(
        system().env.client,
        taskQueue,
        {
          repo: 'cli-no-worker',
          keyless: true,
          lookup: false,
          approve: ['comment_on_issue'],
          trackerUrl: system().trackers.keyless.url,
          timeouts: SWEEP_TIMEOUTS,
        },
        SWEEP_WORKFLOW_TASK_TIMEOUT,
      );
      const waitingFor = async () =>
        ((await handle.describe()).memo?.[WAITING_MEMO] as WaitingState | undefined) ?? {
          approvals: [],
          questions: [],
        };
      const first = startWorkerChild(system(), taskQueue, {
        targets: { [handle.workflowId]: { name: 'tracker.accepted', detail: 'create_issue call_create_1' } },
      });
      children.push(first);
      await first.waitForEvent((e) => e.type === 'parked');
      await first.kill('SIGKILL');
      // The next worker asks the question and is killed while the run waits for the answer.
      const second = startWorkerChild(system(), taskQueue);
      children.push(second);
      await eventually(async () => (await waitingFor()).questions.length > 0, 60_000);
      await second.kill('SIGKILL');

      // With no worker, status still shows the question (from the memo) and says why it shows no more.
      const status = await cliOn('status', [handle.workflowId]);
      expect(status.code).toBe(0);
      expect(status.stdout).toContain('no worker answered');
      expect(status.stdout).toContain('question call_create_1#1: did call_create_1 create_issue happen?');

      // The server finds the run by what it waits for: the Temporal CLI's query, and status with no id.
      const listed = await eventually(async () => {
        const ids = await workflowList(`AgentWaiting = "question" AND AgentPendingCalls = "call_create_1"`);
        return ids.includes(handle.workflowId) && ids;
      });
      expect(listed).toContain(handle.workflowId);
      expect(await workflowList(`AgentWaiting = "approval" AND WorkflowId = "${handle.workflowId}"`)).toEqual([]);
      const waitingRuns = await cliOn('status', []);
      expect(waitingRuns.code).toBe(0);
      expect(waitingRuns.stdout).toContain(
        `${handle.workflowId}: answer to call_create_1#1 (did call_create_1 create_issue happen?)`,
      );

      // The person finds the issue in the tracker and gives its record as the call's result.
      const { comments: _c, ...made } = system().trackers.keyless.store.contents('cli-no-worker')[0];
      const answered = await cliOn('resolve', [
        handle.workflowId,
        'call_create_1',
        '--happened',
        '--result',
        JSON.stringify(made),
      ]);
      expect(answered).toMatchObject({ code: 0, stdout: expect.stringContaining('call_create_1#1') });
      // No worker answers: the answer goes by signal, which the server keeps until one is back, and the command says so.
      expect(answered.stdout).toContain(
        'sent by signal: no worker answered within 5 s; the run takes it when one is back',
      );
      const third = startWorkerChild(system(), taskQueue);
      children.push(third);
      await eventually(async () => (await waitingFor()).approvals.some((a) => a.callId === 'call_comment_1'), 60_000);
      await third.kill('SIGKILL');

      const approved = await cliOn('approve', [handle.workflowId, 'call_comment_1']);
      expect(approved).toMatchObject({ code: 0, stdout: expect.stringContaining('approved call_comment_1') });
      expect(approved.stdout).toContain('sent by signal: no worker answered');
      children.push(startWorkerChild(system(), taskQueue));
      const result = await handle.result();
      expect(system().trackers.keyless.store.counts('cli-no-worker')).toEqual({ issues: 2, comments: 1 });
      expect(result.questionsAsked).toBe(1);
      expect(await waitingFor()).toEqual({ approvals: [], questions: [] });
      const { searchAttributes } = await handle.describe();
      // An empty keyword list removes the attribute: no call waits.
      expect(searchAttributes).toMatchObject({ AgentWaiting: ['none'] });
      expect(searchAttributes).not.toHaveProperty('AgentPendingCalls');
      expect((await cliOn('status', [])).stdout).not.toContain(handle.workflowId);
    } finally {
      for (const c of children) await c.kill();
    }
  }, 180_000);

  test('reset and cancel as a person runs them: the new run says where it came from, what it carried and what it took from the earlier run; bad targets are refused', async () => {
    const started = await cli('start', ['--task', 'coupon bug', '--repo', 'cli-reset', '--approve', 'create_issue']);
    const workflowId = started.stdout.trim();
    await eventually(async () =>
      (await cli('status', [workflowId])).stdout.includes('waiting for approval: call_create_1'),
    );
    const { runId: firstRun } = await system().env.client.workflow.getHandle(workflowId).describe();

    // Refused, with the usage line, before anything is sent.
    const badTarget = await cli('reset', [workflowId, '--to', 'yesterday']);
    expect(badTarget.code).toBe(2);
    expect(badTarget.stderr).toContain('bad reset target "yesterday": last-task, first-task or an event id');
    const notATask = await cli('reset', [workflowId, '--to', '1']);
    expect(notATask.code).toBe(2);
    expect(notATask.stderr).toContain(
      'event 1 is WorkflowExecutionStarted: a reset goes back to the end of a workflow task',
    );
    const unknown = await cli('reset', ['no-such-run']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe('no run with workflow id no-such-run');
    expect((await system().env.client.workflow.getHandle(workflowId).describe()).runId).toBe(firstRun);

    const reset = await cli('reset', [workflowId, '--to', 'last-task', '--reason', 'a wrong prompt']);
    expect(reset.code).toBe(0);
    const { runId: secondRun } = await system().env.client.workflow.getHandle(workflowId).describe();
    expect(secondRun).not.toBe(firstRun);
    expect(reset.stdout).toMatch(
      new RegExp(`^reset ${workflowId} to event \\d+: run ${firstRun} is over, run ${secondRun} goes on from there`),
    );
    // The model's reply was carried over: the new run waits for the same approval, and asks no model again.
    const status = await eventually(async () => {
      const s = await cli('status', [workflowId]);
      return s.stdout.includes('waiting for approval: call_create_1') && s;
    });
    expect(status.stdout).toMatch(
      new RegExp(`reset from run ${firstRun} at event \\d+ \\(a wrong prompt\\): carried [1-9]\\d* completed activit`),
    );

    // Back to the first task: the history keeps no reply, and the new run takes the one the run it
    // came from holds instead of asking the model again, so it waits for the same call's approval.
    const again = await cli('reset', [workflowId, '--to', 'first-task', '--reason', 'start over']);
    expect(again.code).toBe(0);
    const { runId: thirdRun } = await system().env.client.workflow.getHandle(workflowId).describe();
    const taken = await eventually(async () => {
      const s = await cli('status', [workflowId]);
      return s.stdout.includes('waiting for approval: call_create_1') && s;
    });
    expect(taken.stdout).toContain(`turn 1: the model's reply taken from run ${secondRun}, not asked again`);

    const cancelled = await cli('cancel', [workflowId]);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toContain(`asked ${workflowId} (run ${thirdRun}) to cancel`);
    await eventually(async () => (await cli('status', [workflowId])).stdout.startsWith(`${workflowId}: cancelled`));
  });
});
