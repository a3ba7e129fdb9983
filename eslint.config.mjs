// ESLint: typescript-eslint everywhere; the rules between the sweep's rooms and the app (the engine
// knows no app, the plugin runs in anyone's worker, the worker side never imports the engine, app code
// imports only the plugin); and in workflows/ the rules that keep workflow code deterministic (Temporal
// replays it): no Node built-ins or I/O modules, no Math.random, activities imported as types only.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The app's folders: the agent and its world, this repository's sweep of it and its benchmarks, which
 * the sweep's engine, worker side and plugin never import.
 */
const APP = '(tracker|model|workflows|activities|mcp|workers|clients|codec|store|examples|agent-sweep|bench)';

/** A folder's import rule: each restriction is a regex on the import's text, with the reason. */
const importRule = (...patterns) => ({
  '@typescript-eslint/no-restricted-imports': [
    'error',
    { patterns: patterns.map(([regex, message]) => ({ regex, message })) },
  ],
});

/**
 * An example is a user of the package: it imports only what `exports` names (lib/, the sweep's index
 * and plugin), and the receivers it acts on (the tracker's client, as a user's code calls its own
 * services), never the loop's own code.
 */
const EXAMPLE_OWN_CODE = [
  '^\\.\\./\\.\\./(model|workflows|activities|mcp|workers|clients|codec|store|common)(/|$)',
  "an example is a user of the package: it imports only its entry points (lib/, the sweep's sweep/index.ts) and the tracker it acts on",
];
const EXAMPLE_SWEEP = [
  '(^|/)sweep/(?!(plugin|index)$)',
  'an example is a user of the package: of the sweep it imports only sweep/index.ts and sweep/plugin',
];

const NODE_BUILTINS = [
  'assert',
  'buffer',
  'child_process',
  'cluster',
  'crypto',
  'dgram',
  'dns',
  'events',
  'fs',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'perf_hooks',
  'process',
  'readline',
  'stream',
  'timers',
  'tls',
  'url',
  'util',
  'v8',
  'vm',
  'worker_threads',
  'zlib',
];

/**
 * The rules that keep workflow code deterministic (Temporal replays it), for a folder `up` below the
 * root ('../' or '../../'), with `extra` import patterns ([regex, reason]) of its own.
 */
const workflowRules = (up, extra) => ({
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      paths: NODE_BUILTINS.flatMap((name) => [
        { name, message: 'workflow code may do no I/O: Node built-ins belong in activities' },
        { name: `node:${name}`, message: 'workflow code may do no I/O: Node built-ins belong in activities' },
      ]),
      patterns: [
        ...extra.map(([regex, message]) => ({ regex, message })),
        {
          group: [`${up}activities`, `${up}activities/*`, './activities'],
          allowTypeImports: true,
          message: 'import activities as types only, and call them through proxyActivities',
        },
        {
          group: ['@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@temporalio/testing'],
          message: 'workflow code uses @temporalio/workflow only',
        },
        {
          group: [
            `${up}tracker/*`,
            // What a model sees of the tracker's tools (the sweep's designs send them): pure data, no import.
            `!${up}tracker/tool-specs`,
            `${up}mcp/*`,
            `${up}model/*`,
            `${up}clients/*`,
            `${up}store/*`,
            `${up}sweep/*`,
            'openai',
            'fastify',
            'better-sqlite3',
            '@modelcontextprotocol/*',
          ],
          allowTypeImports: true,
          message: 'workflow code may do no I/O: this module belongs in activities',
        },
      ],
    },
  ],
  'no-restricted-properties': [
    'error',
    {
      object: 'Math',
      property: 'random',
      message: 'not deterministic on replay: take randomness from an activity (or uuid4() from @temporalio/workflow)',
    },
  ],
  'no-restricted-globals': [
    'error',
    { name: 'process', message: 'workflow code cannot read the environment: pass it in the input' },
    { name: 'performance', message: 'not the workflow clock: use Date.now(), which is workflow time' },
    { name: 'fetch', message: 'workflow code may do no I/O: call an activity' },
  ],
});

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.sweep/', '.tools/', '.dev/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // CommonJS config files run by Node.
    files: ['**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        module: 'readonly',
        require: 'readonly',
        process: 'readonly',
        __dirname: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Type-aware: a promise nobody awaits loses its error (and, in a harness, its ordering).
    files: ['**/*.ts'],
    // The lint test's files exist only on its stdin, outside any project the type checker knows.
    ignores: ['test/fixtures/scratch-project/**', 'test/fixtures/scratch-agent/**', '**/lint-example.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  {
    rules: {
      // `_name` marks what is left out on purpose (a destructured field, an unused parameter).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // The engine runs; its judging (sweep/judge) counts and checks; its hosts start what it kills.
    files: ['sweep/engine/**/*.ts', 'sweep/judge/**/*.ts', 'sweep/hosts/**/*.ts'],
    rules: importRule(
      [
        '^\\.\\./(config|cli|report|plugin)(/|$)',
        'the sweep engine knows no suite, reporter or command: a suite gives it what it needs (sweep/engine/suite.ts)',
      ],
      [`^\\.\\./\\.\\./${APP}(/|$)`, 'the sweep engine knows no app: what it sweeps comes in through a suite'],
      [
        '^\\.\\./\\.\\./common/(search-attributes|key|config|secrets|access|receiver-errors|payload-codec)$',
        "the sweep engine knows no app: this is the agent's (a suite names what its runs need)",
      ],
    ),
  },
  {
    files: ['sweep/faults/**/*.ts'],
    rules: importRule(
      [
        '^\\.\\./(config|cli|report|plugin)(/|$)',
        'a fault knows no suite, reporter or command: a suite reads the faults its rows name (sweep/faults/fault.ts)',
      ],
      [`^\\.\\./\\.\\./${APP}(/|$)`, 'a fault knows no app: a suite carries out what a fault of its receivers says'],
    ),
  },
  {
    // The library knows no demo: the published command, its reporters and the config suite sweep a
    // user's config; this repository's own table (agent-sweep/, its tracker, model and MCP server, the
    // examples) is given to the command by the repository's own entry (agent-sweep/crash-sweep.ts).
    files: ['sweep/cli/**/*.ts', 'sweep/report/**/*.ts', 'sweep/config/**/*.ts', 'sweep/index.ts'],
    rules: importRule(
      [
        '(^|/)(agent-sweep|bench)(/|$)',
        "the library knows no demo: this repository's table is given to the command by agent-sweep/crash-sweep.ts",
      ],
      [
        '^(\\.\\./)+(tracker|model|mcp|examples)(/|$)',
        "the library knows no demo: the tracker, the model server, the MCP server and the examples are this repository's",
      ],
    ),
  },
  {
    files: ['sweep/worker/**/*.ts'],
    rules: importRule(
      [
        '^\\.\\./(engine|judge|hosts|faults|agent|config|cli|bench|report)(/|$)',
        'the worker side runs in every worker process the engine starts: it never imports the engine or a suite',
      ],
      [
        `^\\.\\./\\.\\./${APP}(/|$)`,
        'the worker side knows no app: the worker entry of a suite passes it what it needs',
      ],
    ),
  },
  {
    files: ['sweep/plugin/**/*.ts'],
    rules: importRule(
      [
        '^\\.\\./(?!\\.\\./common/crash-(points|sink)$)',
        "the plugin runs in anyone's worker: it imports only the crash-point hook (common/crash-points, common/crash-sink) and @temporalio/*",
      ],
      [
        '^(?!@temporalio/|node:|\\.)',
        "the plugin runs in anyone's worker: no package but @temporalio/* and Node's own",
      ],
    ),
  },
  {
    // The library (what the package's entry points are made of) knows no demo, as the sweep's command does.
    files: ['lib/**/*.ts', 'activities/**/*.ts', 'workers/**/*.ts', 'store/**/*.ts', 'common/**/*.ts'],
    rules: importRule(
      [
        '(^|/)(sweep(/(?!plugin(/|$))|$)|agent-sweep(/|$))',
        'app code imports only the crash-sweep plugin (sweep/plugin): the sweep runs the app, never the other way round',
      ],
      [
        '^(\\.\\./)+(tracker|model|mcp|examples)(/|$)|(^|/)clients/dev-env$',
        "the library knows no demo: the tracker, the model server, the MCP server, the examples and npm run dev's settings are this repository's",
      ],
    ),
  },
  {
    files: ['tracker/**/*.ts', 'model/**/*.ts', 'mcp/**/*.ts', 'clients/**/*.ts', 'codec/**/*.ts'],
    rules: importRule([
      '(^|/)(sweep(/(?!plugin(/|$))|$)|agent-sweep(/|$))',
      'app code imports only the crash-sweep plugin (sweep/plugin): the sweep runs the app, never the other way round',
    ]),
  },
  {
    // The clients' code the package's /client entry point is made of: library, as lib/ is.
    files: ['clients/connect.ts', 'clients/agent-client.ts'],
    rules: importRule(
      [
        '(^|/)sweep(/(?!plugin(/|$))|$)',
        'app code imports only the crash-sweep plugin (sweep/plugin): the sweep runs the app, never the other way round',
      ],
      [
        '^(\\.\\./)+(tracker|model|mcp|examples)(/|$)|(^|/)dev-env$',
        "the library knows no demo: the tracker, the model server, the MCP server, the examples and npm run dev's settings are this repository's",
      ],
    ),
  },
  {
    // The ground floor: every room builds on common/, so it builds on none of them.
    files: ['common/**/*.ts'],
    rules: importRule([
      '^\\.\\./',
      'common/ is the ground floor: it imports no other folder of the repository (a module that needs one belongs above it)',
    ]),
  },
  {
    // The engine's coordinators stay short: a function that grows past a screen is split by what it does.
    files: ['sweep/engine/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80 }] },
  },
  {
    files: ['examples/**/*.ts'],
    rules: importRule(EXAMPLE_OWN_CODE, EXAMPLE_SWEEP),
  },
  {
    files: ['workflows/**/*.ts', 'examples/**/workflows.ts'],
    rules: workflowRules('../', [EXAMPLE_OWN_CODE]),
  },
  {
    // The designs the sweep compares with the loop are workflow code too.
    files: ['agent-sweep/designs.ts', 'agent-sweep/workflows.ts'],
    rules: workflowRules('../', []),
  },
);
