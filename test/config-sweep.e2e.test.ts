// The order example (examples/order), swept through its config files as a user's workflow would be:
// nothing in it was written for the sweep, and every point below was recorded by the worker plugin.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { promisify } from 'node:util';
import { configSuite } from '../sweep/config/config-suite';
import { ConfigError, loadSweepConfig } from '../sweep/config/load-config';
import { formatTable } from '../sweep/report/table';
import { runSweep, type SweepReport } from '../sweep/engine/passes';
import { ROOT } from './helpers/processes';

const config = (name: string) => path.join(ROOT, 'examples', 'order', `${name}.config.ts`);
const failures = (r: SweepReport) => r.scenarios.filter((s) => s.error).map((s) => `${s.id}: ${s.error}`);

/** The points a clean order run reaches, as the plugin names them. */
const ORDER_POINTS = [
  ['workflow.waiting', 'approve'],
  ['workflow.decided', 'scheduleActivity'],
  ['activity.started', 'charge'],
  ['http.accepted', 'POST 127.0.0.1 /charges'],
  ['activity.returned', 'charge'],
  ['workflow.decided', 'scheduleActivity'],
  ['activity.started', 'reserve'],
  ['http.accepted', 'POST 127.0.0.1 /reservations'],
  ['activity.returned', 'reserve'],
  ['workflow.decided', 'scheduleActivity'],
  ['activity.started', 'sendConfirmation'],
  ['http.accepted', 'POST 127.0.0.1 /mails'], // node:http, not fetch
  ['activity.returned', 'sendConfirmation'],
  ['workflow.decided', 'completeWorkflowExecution'],
];

describe('sweeping a workflow of your own with one config file', () => {
  test('the naive order: the plugin records every boundary, and a kill once the shop has answered charges, reserves or mails twice', async () => {
    // The server is kept so that a run's history can be read below.
    const report = await runSweep({ suite: configSuite(config('naive')), twice: false, keepServer: true });
    try {
      // The order's activities take 5 minutes in its code: the runs the sweep started were given 4 s,
      // retried after 100 ms, at most 1 s apart, and the report says so.
      const connection = await Connection.connect({ address: report.kept!.address });
      const history = await new Client({ connection }).workflow
        .getHandle(report.scenarios[0].workflowId)
        .fetchHistory();
      await connection.close();
      const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes);
      expect(scheduled).toHaveLength(3);
      for (const e of scheduled) {
        const a = e.activityTaskScheduledEventAttributes!;
        expect(Number(a.startToCloseTimeout!.seconds)).toBe(4);
        expect(a.retryPolicy!.initialInterval).toMatchObject({ nanos: 100_000_000 });
        expect(Number(a.retryPolicy!.maximumInterval!.seconds)).toBe(1);
      }
      expect(report.notes).toEqual([
        "activity timeouts capped for the sweep: start-to-close and heartbeat at most 4 s, retries after 100 ms and at most 1 s apart, timers at most 1 s (activityTimeouts: 'own' in the config keeps yours)",
      ]);
    } finally {
      await report.kept!.stop();
    }
    expect(failures(report)).toEqual([]);
    expect(report.points['order-naive'].map((p) => [p.name, p.detail])).toEqual(ORDER_POINTS);
    // Killed after the shop acted (http.accepted) or after the activity had its result (activity.returned):
    // the retried activity acts again. Before the request, or once the result is in history: no harm.
    const damaged = report.scenarios
      .filter((s) => s.outcome!.dups > 0)
      .map((s) => `${s.landed[0].name} ${s.landed[0].detail}`);
    expect(damaged).toEqual([
      'http.accepted POST 127.0.0.1 /charges',
      'activity.returned charge',
      'http.accepted POST 127.0.0.1 /reservations',
      'activity.returned reserve',
      'http.accepted POST 127.0.0.1 /mails',
      'activity.returned sendConfirmation',
    ]);
    expect(report.rows[0]).toMatchObject({ label: 'order, naive', once: 14, withDups: 6, dups: 6, missing: 0 });
    // The naive config is a control: it must show damage, and does.
    expect(report.controls).toEqual({
      controls: [{ name: 'order-naive', label: 'order, naive', damage: ['dups 6'] }],
      failures: [],
    });
    // The scripted manager approved every run that waited, restarts included: no run was left waiting.
    expect(report.scenarios.every((s) => s.outcome)).toBe(true);
  }, 300_000);

  test('the fixed order (keys from the workflow and activity ids, a shop that honours them): no duplicate, nothing missing; a scenario that erred runs again and counts only when clean', async () => {
    // The fixed config (examples/order/fixed.config.ts) with a check that fails once for a clean run
    // and once for a first-pass scenario: the sweep runs each again and says which and why.
    const file = path.join(ROOT, 'test', 'fixtures', 'configs', 'check-fails-once.config.ts');
    const lines: string[] = [];
    const report = await runSweep({ suite: configSuite(file), twice: false, progress: (l) => lines.push(l) });
    expect(failures(report)).toEqual([]);
    // On a busy machine a run may also err for the machine (a live task timed out): that runs again too.
    expect(report.reruns).toContainEqual({
      id: expect.stringMatching(/^order-check-fails-once once \d+$/),
      attempt: expect.any(Number),
      error: 'counting its effects failed: the shop did not answer (on purpose, once)',
    });
    // The scenario that replaced it is a fresh run, killed at the same point.
    const once = report.reruns.find((r) => r.id.includes(' once '))!;
    const again = report.scenarios.find((s) => s.id === once.id)!;
    expect(again.landed).toEqual(again.expected);
    // A clean run that erred ran again with its pair, the second after the first in one worker process,
    // so the two were still compared.
    expect(report.reruns).toContainEqual({
      id: expect.stringMatching(/^order-check-fails-once clean (run|again)$/),
      attempt: 1,
      error: 'counting its effects failed: the shop did not answer (on purpose, once)',
    });
    expect(lines).toContainEqual(expect.stringMatching(/^clean runs: 1 scenario\(s\) erred, running them again/));
    expect(lines.filter((l) => l.includes('not compared'))).toEqual([]);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^once: \d+ scenario\(s\) erred, running them again \(\d of 2\): .*1 counting its effects failed/,
      ),
    );
    // The fixed order's row: the run that erred counts nowhere.
    expect(formatTable(report.rows).split('\n')[1]).toMatch(
      /^order, a check that fails once +14 +0 +0 +0 +0 +0 +0 +0 +0$/,
    );
  }, 300_000);

  test('a run that ends otherwise than its clean run (a kill inside its activity makes it fail where its clean run completed) counts in the other-end column', async () => {
    const other = await runSweep({
      suite: configSuite(path.join(ROOT, 'test', 'fixtures', 'configs', 'other-end.config.ts')),
      twice: false,
    });
    expect(failures(other)).toEqual([]);
    expect(
      other.scenarios.filter((s) => s.otherEnd).map((s) => [`${s.landed[0].name} ${s.landed[0].detail}`, s.end]),
    ).toEqual([
      ['activity.started step', 'failed: Retried: the step was retried'],
      ['activity.returned step', 'failed: Retried: the step was retried'],
    ]);
    expect(formatTable(other.rows).split('\n')[0]).toMatch(/ appr\+ {2}other end$/);
  }, 300_000);

  test('a config that lacks what the sweep needs, or does not load, is refused with what to fix', async () => {
    expect(() => loadSweepConfig(path.join(ROOT, 'test', 'fixtures', 'configs', 'missing-check.config.ts'))).toThrow(
      /missing-check\.config\.ts: activities is an object, not \(\) => object\n.*missing-check\.config\.ts: check is missing .*\n\(every field, its type and default: docs\/config\.md, "The fields"\)$/,
    );
    expect(() => loadSweepConfig(path.join(ROOT, 'test', 'fixtures', 'configs', 'throws.config.js'))).toThrow(
      /did not load: MAIL_URL is not set/,
    );
    expect(() => loadSweepConfig('no/such.config.ts')).toThrow(ConfigError);
    const missing = path.join(ROOT, 'test', 'fixtures', 'configs', 'missing-module.config.js');
    expect(() => loadSweepConfig(missing)).toThrow(
      `the config ${missing} did not load: Cannot find module './no-such-helper'`,
    );
    expect(() => loadSweepConfig(path.join(ROOT, 'test', 'fixtures', 'configs', 'bad-server.config.js'))).toThrow(
      /rows\[0\]\.serverDies is "always", not 'worker-survives' or 'worker-dies'\n.*rows\[1\]\.reset is "yesterday", not 'last-task' or 'first-task'/,
    );
    expect(() => loadSweepConfig(path.join(ROOT, 'test', 'fixtures', 'configs', 'bad-timeouts.config.js'))).toThrow(
      /activityTimeouts is "short", not 'capped' or 'own'/,
    );
    // JavaScript works as TypeScript does, through module.exports as through a default export.
    const js = loadSweepConfig(path.join(ROOT, 'test', 'fixtures', 'configs', 'order.config.js'));
    expect([js.config.name, typeof js.config.start]).toEqual(['order-js', 'function']);
    const failure = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'sweep/cli/crash-sweep.ts', '--config', 'no/such.config.ts'],
      { cwd: ROOT },
    ).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failure?.stderr).toContain(`no config file at ${path.join(ROOT, 'no/such.config.ts')}`);
    // A config that cannot be used is bad input: exit status 2, as a bad command line.
    expect(failure?.code).toBe(2);
    // No --config, and no crash-sweep.config.ts where the command runs: it says what to write.
    const none = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'sweep/cli/crash-sweep.ts'], {
      cwd: ROOT,
    }).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(none?.code).toBe(2);
    expect(none?.stderr).toContain(`no --config, and no crash-sweep.config.ts in ${ROOT}: write one (defineSweep`);
    const unknown = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'sweep/cli/crash-sweep.ts', '--config', config('naive'), '--variant', 'agent'],
      { cwd: ROOT },
    ).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(unknown?.code).toBe(2);
    expect(unknown?.stderr).toContain(
      'unknown variant "agent" (variants: order-naive; --list shows each with its title',
    );
  }, 60_000);
});
