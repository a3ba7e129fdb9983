// `npm run lint` guards workflow code's determinism and the rules between the sweep's rooms: these
// are the mistakes it must stop. ESLint runs in a process of its own (its config is an ES module,
// which jest cannot load), as `npm run lint` runs it.
// That the repository itself is clean is `npm run lint`'s own check, which `.ci/run` runs before the tests.
import { LintHost } from './helpers/lint-host';

// One ESLint process for the whole file: loading its config and type checker once, not once a case.
let host: LintHost;
beforeAll(() => {
  host = new LintHost();
});
afterAll(() => host?.close());

async function problems(code: string, file = 'workflows/lint-example.ts'): Promise<string[]> {
  return (await host.lint(code, file)).map((m) => `${m.ruleId}: ${m.message}`);
}

/** The lint's problems with a file at `file` that imports `name` from `from` (and uses it). */
function importing(from: string, name: string, file: string): Promise<string[]> {
  return problems(`import { ${name} } from '${from}';\nexport const x = ${name};\n`, file);
}

describe('the determinism lint on workflow code', () => {
  test('Node built-ins and I/O modules are refused in workflows/, with the reason', async () => {
    expect(await problems("import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n")).toEqual([
      expect.stringMatching(/no-restricted-imports: .*workflow code may do no I\/O/),
    ]);
    expect(await problems("import OpenAI from 'openai';\nexport const x = OpenAI;\n")).toEqual([
      expect.stringMatching(/no-restricted-imports/),
    ]);
  });

  test('activities are imported as types only', async () => {
    expect(
      await problems("import { createActivities } from '../activities';\nexport const x = createActivities;\n"),
    ).toEqual([expect.stringMatching(/import activities as types only/)]);
    expect(
      await problems("import type { AgentActivities } from '../activities';\nexport type X = AgentActivities;\n"),
    ).toEqual([]);
  });

  test('Math.random, process and performance are refused', async () => {
    expect(await problems('export const x = Math.random();\n')).toEqual([
      expect.stringMatching(/no-restricted-properties: .*not deterministic on replay/),
    ]);
    expect(await problems('export const x = process.env.HOME;\n')).toEqual([
      expect.stringMatching(/no-restricted-globals/),
    ]);
    expect(await problems('export const x = performance.now();\n')).toEqual([
      expect.stringMatching(/no-restricted-globals/),
    ]);
  });

  test("the sweep's designs are workflow code too: the same rules, in the agent's sweep", async () => {
    const file = 'agent-sweep/designs.ts';
    expect(await problems("import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n", file)).toEqual([
      expect.stringMatching(/no-restricted-imports: .*workflow code may do no I\/O/),
    ]);
    expect(
      await problems("import { createActivities } from '../activities';\nexport const x = createActivities;\n", file),
    ).toEqual([expect.stringMatching(/import activities as types only/)]);
    expect(await problems('export const x = Math.random();\n', file)).toEqual([
      expect.stringMatching(/not deterministic on replay/),
    ]);
  });

  test('the same code outside workflows/ is fine', async () => {
    expect(
      await problems(
        "import { readFileSync } from 'node:fs';\nexport const x = [readFileSync, Math.random()];\n",
        'activities/lint-example.ts',
      ),
    ).toEqual([]);
  });
  test('a promise nobody awaits is refused everywhere (type-aware: the text is linted as a file of the project)', async () => {
    expect(await problems('async function f(): Promise<void> {}\nf();\n', 'common/duration.ts')).toEqual([
      expect.stringMatching(/^@typescript-eslint\/no-floating-promises: /),
    ]);
    expect(await problems('async function f(): Promise<void> {}\nvoid f();\n', 'common/duration.ts')).toEqual([]);
  });

  test('activities may import the common modules', async () => {
    expect(
      await problems("import { key } from '../common/key';\nexport const x = key;\n", 'activities/lint-example.ts'),
    ).toEqual([]);
  });
});

describe("the rules between the sweep's rooms and the app", () => {
  const refused = (message: RegExp) => [
    expect.stringMatching(new RegExp(`no-restricted-imports: .*${message.source}`)),
  ];

  test("the engine imports no suite, reporter, command or app, and none of the agent's common modules", async () => {
    expect(await importing('../../agent-sweep/agent-suite', 'agentSuite', 'sweep/engine/lint-example.ts')).toEqual(
      refused(/the sweep engine knows no app/),
    );
    expect(await importing('../../bench/sweep-targets', 'ceiling', 'sweep/hosts/lint-example.ts')).toEqual(
      refused(/the sweep engine knows no app/),
    );
    expect(await importing('../config/config-suite', 'configSuite', 'sweep/engine/lint-example.ts')).toEqual(
      refused(/the sweep engine knows no suite/),
    );
    expect(await importing('../report/table', 'formatTable', 'sweep/engine/lint-example.ts')).toEqual(
      refused(/the sweep engine knows no suite, reporter/),
    );
    expect(await importing('../../tracker/store', 'Store', 'sweep/engine/lint-example.ts')).toEqual(
      refused(/the sweep engine knows no app/),
    );
    expect(await importing('../../common/search-attributes', 'AGENT_WAITING', 'sweep/engine/lint-example.ts')).toEqual(
      refused(/the sweep engine knows no app: this is the agent's/),
    );
    expect(
      await problems(
        "import { LINE_PREFIX } from '../worker/line-protocol';\nimport { tsxFlags } from '../../common/tsx';\nexport const x = [LINE_PREFIX, tsxFlags];\n",
        'sweep/engine/lint-example.ts',
      ),
    ).toEqual([]);
  });

  test('a fault imports no suite, reporter, command or app', async () => {
    expect(await importing('../../agent-sweep/rows', 'AGENT_ROWS', 'sweep/faults/lint-example.ts')).toEqual(
      refused(/a fault knows no app/),
    );
    expect(await importing('../config/config-suite', 'configRows', 'sweep/faults/lint-example.ts')).toEqual(
      refused(/a fault knows no suite/),
    );
    expect(await importing('../../tracker/app', 'buildTracker', 'sweep/faults/lint-example.ts')).toEqual(
      refused(/a fault knows no app/),
    );
    expect(await importing('../../common/operations', 'resetRun', 'sweep/faults/lint-example.ts')).toEqual([]);
  });

  test("the library (the command, reporters, the config suite, the entry point) imports none of this repository's demo", async () => {
    expect(await importing('../../agent-sweep/rows', 'AGENT_ROWS', 'sweep/cli/lint-example.ts')).toEqual(
      refused(/the library knows no demo: this repository's table is given to the command/),
    );
    expect(await importing('../../tracker/app', 'buildTracker', 'sweep/report/lint-example.ts')).toEqual(
      refused(/the library knows no demo/),
    );
    expect(await importing('../../examples/stand-in', 'startStandIn', 'sweep/config/lint-example.ts')).toEqual(
      refused(/the library knows no demo/),
    );
    expect(await importing('../engine/passes', 'runSweep', 'sweep/cli/lint-example.ts')).toEqual([]);
  });

  test('common/ is the ground floor: it imports no other folder', async () => {
    expect(await importing('../store/external-storage', 'externalStorageFromEnv', 'common/lint-example.ts')).toEqual(
      refused(/common\/ is the ground floor/),
    );
    expect(await importing('./payload-codec', 'codecFromEnv', 'common/lint-example.ts')).toEqual([]);
  });

  test("the library's own folders (the entry points, the activities, the worker, the store, the client) import none of the demo", async () => {
    expect(await importing('../tracker/tools', 'callTrackerTool', 'activities/lint-example.ts')).toEqual(
      refused(/the library knows no demo/),
    );
    expect(await importing('../mcp/tracker-server', 'buildTrackerMcpServer', 'lib/lint-example.ts')).toEqual(
      refused(/the library knows no demo/),
    );
    expect(await importing('./dev-env', 'clientPayloadDir', 'clients/connect.ts')).toEqual(
      refused(/the library knows no demo/),
    );
    // The demo's own client commands read npm run dev's settings; the library's code reads the library's.
    expect(await importing('./dev-env', 'clientPayloadDir', 'clients/status.ts')).toEqual([]);
    expect(await importing('./mcp-config', 'loadMcpConfig', 'activities/lint-example.ts')).toEqual([]);
  });

  test('the worker side never imports the engine, a suite or the app', async () => {
    expect(await importing('../engine/generation', 'Generation', 'sweep/worker/lint-example.ts')).toEqual(
      refused(/the worker side .* never imports the engine/),
    );
    expect(await importing('../../workers/create-worker', 'createAgentWorker', 'sweep/worker/lint-example.ts')).toEqual(
      refused(/the worker side knows no app/),
    );
  });

  test('the plugin imports only the crash-point hook, @temporalio/* and Node', async () => {
    expect(await importing('../../common/key', 'key', 'sweep/plugin/lint-example.ts')).toEqual(
      refused(/the plugin runs in anyone's worker: it imports only the crash-point hook/),
    );
    expect(await importing('../engine/passes', 'runSweep', 'sweep/plugin/lint-example.ts')).toEqual(
      refused(/the plugin runs in anyone's worker/),
    );
    expect(
      await problems("import OpenAI from 'openai';\nexport const x = OpenAI;\n", 'sweep/plugin/lint-example.ts'),
    ).toEqual(refused(/no package but @temporalio/));
    expect(
      await problems(
        "import { crashPoint } from '../../common/crash-points';\nimport { proxySinks } from '@temporalio/workflow';\nimport http from 'node:http';\nexport const x = [crashPoint, proxySinks, http];\n",
        'sweep/plugin/lint-example.ts',
      ),
    ).toEqual([]);
  });

  test("app code imports only the plugin from sweep/, and nothing of the agent's sweep", async () => {
    expect(await importing('../sweep/engine/passes', 'runSweep', 'workers/lint-example.ts')).toEqual(
      refused(/app code imports only the crash-sweep plugin/),
    );
    expect(await importing('../sweep', 'defineSweep', 'activities/lint-example.ts')).toEqual(
      refused(/app code imports only the crash-sweep plugin/),
    );
    expect(await importing('../agent-sweep/world', 'startWorld', 'tracker/lint-example.ts')).toEqual(
      refused(/app code imports only the crash-sweep plugin/),
    );
    expect(await importing('../sweep/plugin', 'crashSweepPlugin', 'workers/lint-example.ts')).toEqual([]);
  });

  test("an example imports only the package's entry points", async () => {
    expect(await importing('../../activities/activity-key', 'activityKey', 'examples/order/lint-example.ts')).toEqual(
      refused(/an example is a user of the package: it imports only its entry points/),
    );
    expect(await importing('../../lib/activity', 'activityKey', 'examples/order/lint-example.ts')).toEqual([]);
    // The receiver the triage example acts on is not the package's code: its client is allowed.
    expect(await importing('../../tracker/tools', 'callTrackerTool', 'examples/triage/lint-example.ts')).toEqual([]);
    expect(await importing('../../workflows/tools', 'toolSpec', 'examples/triage/lint-example.ts')).toEqual(
      refused(/an example is a user of the package/),
    );
  });
});

describe('the shape of the code', () => {
  test('no function in sweep/engine over 80 lines', async () => {
    const body = (lines: number) =>
      `export function long(): number {\n  let n = 0;\n${'  n += 1;\n'.repeat(lines)}  return n;\n}\n`;
    expect(await problems(body(76), 'sweep/engine/lint-example.ts')).toEqual([]);
    expect(await problems(body(77), 'sweep/engine/lint-example.ts')).toEqual([
      expect.stringMatching(/max-lines-per-function: .*81.*Maximum allowed is 80/),
    ]);
  });
});
