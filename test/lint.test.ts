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

  test("the sweep's designs are workflow code too: the same rules, two folders down", async () => {
    const file = 'sweep/agent/designs.ts';
    expect(await problems("import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n", file)).toEqual([
      expect.stringMatching(/no-restricted-imports: .*workflow code may do no I\/O/),
    ]);
    expect(
      await problems(
        "import { createActivities } from '../../activities';\nexport const x = createActivities;\n",
        file,
      ),
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
    expect(
      await problems(
        "import { agentSuite } from '../agent/agent-suite';\nexport const x = agentSuite;\n",
        'sweep/engine/lint-example.ts',
      ),
    ).toEqual(refused(/the sweep engine knows no suite/));
    expect(
      await problems(
        "import { configSuite } from '../config/config-suite';\nexport const x = configSuite;\n",
        'sweep/engine/lint-example.ts',
      ),
    ).toEqual(refused(/the sweep engine knows no suite/));
    expect(
      await problems(
        "import { formatTable } from '../report/table';\nexport const x = formatTable;\n",
        'sweep/engine/lint-example.ts',
      ),
    ).toEqual(refused(/the sweep engine knows no suite, reporter/));
    expect(
      await problems(
        "import { Store } from '../../tracker/store';\nexport const x = Store;\n",
        'sweep/engine/lint-example.ts',
      ),
    ).toEqual(refused(/the sweep engine knows no app/));
    expect(
      await problems(
        "import { AGENT_WAITING } from '../../common/search-attributes';\nexport const x = AGENT_WAITING;\n",
        'sweep/engine/lint-example.ts',
      ),
    ).toEqual(refused(/the sweep engine knows no app: this is the agent's/));
    expect(
      await problems(
        "import { LINE_PREFIX } from '../worker/line-protocol';\nimport { tsxFlags } from '../../common/tsx';\nexport const x = [LINE_PREFIX, tsxFlags];\n",
        'sweep/engine/lint-example.ts',
      ),
    ).toEqual([]);
  });

  test('a fault imports no suite, reporter, command or app', async () => {
    expect(
      await problems(
        "import { AGENT_ROWS } from '../agent/rows';\nexport const x = AGENT_ROWS;\n",
        'sweep/faults/lint-example.ts',
      ),
    ).toEqual(refused(/a fault knows no suite/));
    expect(
      await problems(
        "import { configRows } from '../config/config-suite';\nexport const x = configRows;\n",
        'sweep/faults/lint-example.ts',
      ),
    ).toEqual(refused(/a fault knows no suite/));
    expect(
      await problems(
        "import { buildTracker } from '../../tracker/app';\nexport const x = buildTracker;\n",
        'sweep/faults/lint-example.ts',
      ),
    ).toEqual(refused(/a fault knows no app/));
    expect(
      await problems(
        "import { resetRun } from '../../common/operations';\nexport const x = resetRun;\n",
        'sweep/faults/lint-example.ts',
      ),
    ).toEqual([]);
  });

  test('the worker side never imports the engine, a suite or the app', async () => {
    expect(
      await problems(
        "import { Generation } from '../engine/generation';\nexport const x = Generation;\n",
        'sweep/worker/lint-example.ts',
      ),
    ).toEqual(refused(/the worker side .* never imports the engine/));
    expect(
      await problems(
        "import { createAgentWorker } from '../../workers/create-worker';\nexport const x = createAgentWorker;\n",
        'sweep/worker/lint-example.ts',
      ),
    ).toEqual(refused(/the worker side knows no app/));
  });

  test('the plugin imports only the crash-point hook, @temporalio/* and Node', async () => {
    expect(
      await problems(
        "import { key } from '../../common/key';\nexport const x = key;\n",
        'sweep/plugin/lint-example.ts',
      ),
    ).toEqual(refused(/the plugin runs in anyone's worker: it imports only the crash-point hook/));
    expect(
      await problems(
        "import { runSweep } from '../engine/passes';\nexport const x = runSweep;\n",
        'sweep/plugin/lint-example.ts',
      ),
    ).toEqual(refused(/the plugin runs in anyone's worker/));
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

  test('app code imports only the plugin from sweep/', async () => {
    expect(
      await problems(
        "import { runSweep } from '../sweep/engine/passes';\nexport const x = runSweep;\n",
        'workers/lint-example.ts',
      ),
    ).toEqual(refused(/app code imports only the crash-sweep plugin/));
    expect(
      await problems(
        "import { defineSweep } from '../sweep';\nexport const x = defineSweep;\n",
        'activities/lint-example.ts',
      ),
    ).toEqual(refused(/app code imports only the crash-sweep plugin/));
    expect(
      await problems(
        "import { startWorld } from '../sweep/agent/world';\nexport const x = startWorld;\n",
        'tracker/lint-example.ts',
      ),
    ).toEqual(refused(/app code imports only the crash-sweep plugin/));
    expect(
      await problems(
        "import { crashSweepPlugin } from '../sweep/plugin';\nexport const x = crashSweepPlugin;\n",
        'workers/lint-example.ts',
      ),
    ).toEqual([]);
  });

  test("an example imports only the package's entry points", async () => {
    expect(
      await problems(
        "import { activityKey } from '../../activities/activity-key';\nexport const x = activityKey;\n",
        'examples/order/lint-example.ts',
      ),
    ).toEqual(refused(/an example is a user of the package: it imports only its entry points/));
    expect(
      await problems(
        "import { activityKey } from '../../lib/activity';\nexport const x = activityKey;\n",
        'examples/order/lint-example.ts',
      ),
    ).toEqual([]);
    // The receiver the triage example acts on is not the package's code: its client is allowed.
    expect(
      await problems(
        "import { callTrackerTool } from '../../tracker/tools';\nexport const x = callTrackerTool;\n",
        'examples/triage/lint-example.ts',
      ),
    ).toEqual([]);
    expect(
      await problems(
        "import { toolSpec } from '../../workflows/tools';\nexport const x = toolSpec;\n",
        'examples/triage/lint-example.ts',
      ),
    ).toEqual(refused(/an example is a user of the package/));
  });
});
