// The package as a project of a user's own sees it: every entry point in `exports` is compiled
// JavaScript with `.d.ts` types, found by TypeScript on its default module resolution (node10, which
// reads `typesVersions`) and on node16 (which reads `exports`), and loaded by plain Node with no tsx.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { ROOT } from './helpers/processes';

const run = promisify(execFile);
const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
/** Every entry point a user can name: `crash-safe-agent`, `crash-safe-agent/sweep`, ... */
const entries = Object.keys(pkg.exports)
  .filter((e) => e !== './package.json')
  .map((e) => (e === '.' ? 'crash-safe-agent' : `crash-safe-agent/${e.slice(2)}`));

/** A user's file that uses one name of every entry point, typed. */
const USER_CODE = `
import { defineSweep, runSweep, type SweepConfig } from 'crash-safe-agent';
import { formatTable } from 'crash-safe-agent/sweep';
import { crashSweepPlugin, crashPoint } from 'crash-safe-agent/plugin';
import { agentWorkflow, callKey, keyedActivities, type AgentInput } from 'crash-safe-agent/workflow';
import { createAgentWorker, defineTool } from 'crash-safe-agent/worker';
import { activityKey } from 'crash-safe-agent/activity';
import { configFromEnv, startAgentRun, withClient } from 'crash-safe-agent/client';
import { aiSdkModel } from 'crash-safe-agent/ai-sdk';
import { externalStorage, LocalStorageDriver } from 'crash-safe-agent/store';

const config: SweepConfig = defineSweep({
  rows: [{ name: 'r', label: 'a row' }],
  workflowsPath: './workflows',
  activities: () => ({}),
  start: async ({ client, taskQueue, workflowId }) =>
    client.workflow.start('w', { taskQueue, workflowId }),
  check: async () => ({ dups: 0, missing: 0 }),
});
const input: AgentInput = { runId: 'r1', task: 'say hello', tools: ['greet'] };
const greet = defineTool({
  name: 'greet',
  description: 'Say hello',
  parameters: { type: 'object', properties: {} },
  effect: 'read-only',
  run: async (_args, ctx) => ctx.key,
});
// A wrong type must be an error, or the check proves nothing: the build below expects exactly this one.
// @ts-expect-error runId is a string
const wrong: AgentInput = { runId: 1, task: 'x' };
export const used = [config, input, greet, wrong, runSweep, formatTable, crashSweepPlugin, crashPoint,
  agentWorkflow, keyedActivities, createAgentWorker, callKey('r1', 'c1'), activityKey, startAgentRun, aiSdkModel,
  configFromEnv().taskQueue, withClient, externalStorage(new LocalStorageDriver({ dir: 'payloads' }))];
`;

let dir: string;

beforeAll(async () => {
  // What `npm ci` (prepare) and `npm pack` build; done here so that dist/ is this tree's.
  await run(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
    },
  );
  dir = mkdtempSync(path.join(os.tmpdir(), 'package-exports-'));
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(ROOT, path.join(dir, 'node_modules', 'crash-safe-agent'), 'dir');
  writeFileSync(path.join(dir, 'user.ts'), USER_CODE);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Type-checks the user's file under `compilerOptions`; the compiler's output on failure. */
async function typecheck(compilerOptions: Record<string, unknown>): Promise<string> {
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, skipLibCheck: true, types: [], ...compilerOptions },
      files: ['user.ts'],
    }),
  );
  try {
    await run(tsc, ['-p', 'tsconfig.json'], { cwd: dir });
    return '';
  } catch (err) {
    return (err as { stdout?: string }).stdout || (err as Error).message;
  }
}

test('TypeScript on its default module resolution (node10) finds the types of every entry point', async () => {
  expect(await typecheck({ module: 'commonjs', target: 'es2022' })).toBe('');
}, 60_000);

test('TypeScript on node16 module resolution (package exports) finds them too', async () => {
  expect(await typecheck({ module: 'node16', moduleResolution: 'node16', target: 'es2022' })).toBe('');
}, 60_000);

test('the check fails on a name an entry point does not export', async () => {
  const good = readFileSync(path.join(dir, 'user.ts'), 'utf8');
  writeFileSync(path.join(dir, 'user.ts'), `import { noSuchName } from 'crash-safe-agent/worker';\n${good}`);
  try {
    expect(await typecheck({ module: 'commonjs', target: 'es2022' })).toMatch(/TS2305.*noSuchName/);
  } finally {
    writeFileSync(path.join(dir, 'user.ts'), good);
  }
}, 60_000);

test('plain Node, with no tsx, loads every entry point from its compiled JavaScript', async () => {
  expect(entries.length).toBeGreaterThanOrEqual(8);
  const script = entries
    .map(
      (e) => `const m = require(${JSON.stringify(e)}); if (!Object.keys(m).length) throw new Error('${e} is empty');`,
    )
    .map((line) => `{ ${line} }`)
    .join('\n');
  const { stdout } = await run(
    process.execPath,
    ['-e', `${script}\nconsole.log(require.resolve('crash-safe-agent'), require.resolve('crash-safe-agent/plugin'))`],
    { cwd: dir },
  );
  const [main, plugin] = stdout.trim().split(' ');
  expect(path.relative(ROOT, main)).toBe(path.join('dist', 'sweep', 'index.js'));
  expect(path.relative(ROOT, plugin)).toBe(path.join('dist', 'sweep', 'plugin', 'index.js'));
}, 60_000);

/** This repository's demo: the tracker, the model server, the MCP server, the examples, the sweep of its own agent, the benchmarks. */
const DEMO = ['tracker', 'model', 'mcp', 'examples', 'agent-sweep', 'bench'];

test('npm pack holds the compiled entry points, the processes they start and the bin, and none of the demo; npm publish takes it', async () => {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'], {
    cwd: ROOT,
  });
  const files = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0].files.map((f) => f.path);
  // Only the compiled code, the bin scripts and what npm always takes.
  expect(files.filter((f) => !/^(dist|bin)\//.test(f) && f !== 'package.json' && f !== 'README.md')).toEqual([]);
  expect(files.filter((f) => DEMO.some((d) => f.startsWith(`dist/${d}/`)))).toEqual([]);
  // Every file the build starts from is there compiled: the entry points and the child processes' mains.
  const build = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
  const roots = build.include.filter((p) => !p.includes('*')).map((p) => `dist/${p.replace(/\.ts$/, '.js')}`);
  expect(roots.filter((f) => !files.includes(f))).toEqual([]);
  const targets = Object.values(pkg.exports).flatMap((t) => (typeof t === 'string' ? [t] : Object.values(t as object)));
  const bins = Object.values((pkg as unknown as { bin: Record<string, string> }).bin);
  expect([...targets, ...bins].map((t) => String(t).replace(/^\.\//, '')).filter((t) => !files.includes(t))).toEqual(
    [],
  );
  // Publishable: no warning of npm's but the one about not being logged in, which a dry run always gives.
  const published = await run('npm', ['publish', '--dry-run', '--ignore-scripts'], { cwd: ROOT });
  const warnings = `${published.stdout}\n${published.stderr}`
    .split('\n')
    .filter((line) => /\bwarn\b/i.test(line) && !/requires you to be logged in/.test(line));
  expect(warnings).toEqual([]);
}, 60_000);

test('no name is exported by two entry points: each idea has one home', () => {
  const entryFiles = Object.entries(pkg.exports)
    .filter(([e]) => e !== './package.json')
    .map(([e, t]) => [e, path.join(ROOT, (t as { types: string }).types)] as const);
  // `.` and `./sweep` are one file under two names.
  const files = [...new Map(entryFiles.map(([e, f]) => [f, e])).entries()];
  const program = ts.createProgram(
    files.map(([f]) => f),
    { noEmit: true },
  );
  const checker = program.getTypeChecker();
  const homes = new Map<string, string[]>();
  for (const [file, entry] of files) {
    const source = program.getSourceFile(file)!;
    for (const symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(source)!))
      homes.set(symbol.name, [...(homes.get(symbol.name) ?? []), entry]);
  }
  expect(homes.size).toBeGreaterThan(50);
  expect([...homes].filter(([, entries]) => entries.length > 1)).toEqual([]);
});

test("the package's runtime dependencies are what its compiled code and bin load: no more, no fewer", async () => {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'], {
    cwd: ROOT,
  });
  const files = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0].files
    .map((f) => f.path)
    .filter((f) => f.endsWith('.js'));
  const full = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<
    'dependencies' | 'peerDependencies',
    Record<string, string>
  >;
  const builtin = new Set(builtinModules);
  const loaded = new Set<string>();
  for (const file of files) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    for (const [, name] of text.matchAll(/\brequire(?:\.resolve)?\(\s*["']([^"'.][^"']*)["']\s*\)/g)) {
      const bare = name.replace(/^node:/, '');
      if (name.startsWith('node:') || builtin.has(bare.split('/')[0])) continue;
      loaded.add(name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : name.split('/')[0]);
    }
  }
  const peers = new Set(Object.keys(full.peerDependencies));
  // Asked for, not needed: the postinstall resolves the AWS SDK only to tell this repository's own
  // install (with its dev dependencies) from a user's (common/install-temporal.ts).
  const probes = new Set(['@aws-sdk/client-s3']);
  expect([...loaded].filter((d) => !peers.has(d) && !probes.has(d)).sort()).toEqual(
    Object.keys(full.dependencies).sort(),
  );
  // A native module compiled for nothing would be the first sign of a dependency no entry point needs.
  expect(Object.keys(full.dependencies)).not.toContain('better-sqlite3');
}, 60_000);
