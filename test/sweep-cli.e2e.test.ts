// `npm run sweep` as a user runs it: one scenario by --scenario with --json, and --address on a server it did not start.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { devServerExecutable } from '../common/temporal-cli';
import { ROOT } from './helpers/processes';

const sweep = (args: string[]) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'agent-sweep/crash-sweep.ts', ...args], { cwd: ROOT });
const HEADER = 'variant                    once  twice  with dups  dups  missing  orphans  asks  calls+  appr+';

describe('npm run sweep: one scenario, an existing server, bad arguments', () => {
  test('--scenario 4.2 runs the scenario killed at point 4 and its restart at point 2, and --json says how to run it again', async () => {
    const json = path.join(mkdtempSync(path.join(os.tmpdir(), 'sweep-cli-')), 'out.json');
    const { stdout } = await sweep(['--variant', 'agent', '--scenario', '4.2', '--json', json]);
    expect(stdout.trimEnd().split('\n')).toEqual([
      HEADER,
      expect.stringMatching(/^agent loop, keyed tracker +1 +1 +0 +0 +0 +0 +0 +\d+ +0$/),
      '',
      'crash sweep: 2 scenarios in 1 row: passed (exit status 0)',
    ]);
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      scenarios: Array<{ id: string; workflowId: string; landed: unknown[]; error: string | null }>;
    };
    expect(report.scenarios.map((s) => s.id)).toEqual(['agent once 4', 'agent twice 4.2']);
    expect(report.scenarios.map((s) => [s.landed.length, s.error])).toEqual([
      [1, null],
      [2, null],
    ]);
    expect(report.scenarios[1].workflowId).toMatch(/^sweep-agent-twice-/);
  }, 240_000);

  test('--address runs the sweep on a Temporal server it did not start, and leaves its runs there', async () => {
    const server = await TestWorkflowEnvironment.createLocal({
      server: { executable: devServerExecutable(), log: { format: 'pretty', level: 'error' } },
    });
    try {
      const { stdout, stderr } = await sweep([
        '--variant',
        'agent',
        '--scenario',
        '4',
        '--once',
        '--address',
        server.address,
      ]);
      expect(stderr).toContain(`on ${server.address}`);
      expect(stdout.trimEnd().split('\n')).toEqual([
        HEADER,
        expect.stringMatching(/^agent loop, keyed tracker +1 +0 +0 +0 +0 +0 +0 +\d+ +0$/),
        '',
        'crash sweep: 1 scenario in 1 row: passed (exit status 0)',
      ]);
      let runs = 0;
      for await (const wf of server.client.workflow.list({ query: `WorkflowType = 'agentWorkflow'` }))
        if (wf.workflowId.startsWith('sweep-agent-')) runs += 1;
      expect(runs).toBe(3); // the two clean runs and the scenario
    } finally {
      await server.teardown();
    }
  }, 240_000);

  test.each([
    [['--scenario', '4.x', '--variant', 'agent'], /bad scenario "4.x"/],
    [['--scenario', '4'], /--scenario needs exactly one --variant/],
    [['--address', 'nowhere'], /bad --address nowhere: HOST:PORT/],
    [['--lanes', '0'], /bad --lanes 0/],
    [['--reporter', 'table,tap'], /unknown reporter "tap" \(reporters: table, json, html, junit, github/],
    [['--fail-on', 'dupes'], /bad --fail-on "dupes": a comma list of dups, missing, orphans/],
  ])('%j is refused before anything starts, with exit code 2', async (args, message) => {
    const failure = await sweep(args as string[]).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toMatch(message as RegExp);
  });
});

test("a sweep that cannot judge (its clean run's check fails with lines a CI runner reads as commands) prints them inert, and still writes every report with the reason", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sweep-cli-inert-'));
  const file = (name: string) => path.join(dir, name);
  const config = path.join(ROOT, 'test', 'fixtures', 'configs', 'check-says-commands.config.ts');
  const failed = await sweep([
    '--config',
    config,
    '--reporter',
    `table,github,junit=${file('junit.xml')}`,
    '--json',
    file('report.json'),
    '--html',
    file('report.html'),
  ]).then(
    () => {
      throw new Error('the sweep passed');
    },
    (err: { code: number; stdout: string; stderr: string }) => err,
  );
  expect(failed.code).toBe(3);
  // No line of stderr, and no line of stdout but the github reporter's own (one line each), begins a command.
  for (const line of failed.stderr.split('\n')) expect(line).not.toMatch(/^\s*(::|##\[)/);
  expect(failed.stderr).toMatch(
    /the sweep could not judge: the clean run of order-says-commands .*the shop said:\n\| ::add-mask::hunter2\n {2}\| ::error title=planted/,
  );
  const commands = failed.stdout.split('\n').filter((l) => /^\s*(::|##\[)/.test(l));
  expect(commands.length).toBeGreaterThan(0);
  for (const line of commands) {
    expect(line).toMatch(/^::(error|notice)( [^:]*)?::/);
    expect(line).not.toMatch(/^::add-mask/);
  }
  // The reporter's own annotation carries the run's lines escaped, inside its one line.
  expect(failed.stdout).toContain('the shop said:%0A::add-mask::hunter2%0A  ::error title=planted');
  expect(failed.stdout).toMatch(/crash sweep: 0 scenarios in 0 rows: could not judge \(1 reason\) \(exit status 3\)/);
  // The reports are there, each with the reason.
  const json = JSON.parse(readFileSync(file('report.json'), 'utf8')) as { scenarios: unknown[] };
  expect(json.scenarios).toEqual([]);
  expect(readFileSync(file('junit.xml'), 'utf8')).toMatch(/the clean run of order-says-commands/);
  expect(readFileSync(file('report.html'), 'utf8')).toMatch(/<html/i);
}, 180_000);
