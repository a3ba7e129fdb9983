// ESLint: typescript-eslint everywhere, and in workflows/ the rules that keep workflow code
// deterministic (Temporal replays it): no Node built-ins or I/O modules, no Math.random, activities
// imported as types only.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NODE_BUILTINS = ['assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs', 'http', 'http2', 'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'timers', 'tls', 'url', 'util', 'v8', 'vm', 'worker_threads', 'zlib'];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.tools/', '.dev/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // CommonJS config files run by Node.
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'readonly', require: 'readonly', process: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    rules: {
      // `_name` marks what is left out on purpose (a destructured field, an unused parameter).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    files: ['workflows/**/*.ts', 'examples/**/workflows.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: NODE_BUILTINS.flatMap((name) => [
            { name, message: 'workflow code may do no I/O: Node built-ins belong in activities' },
            { name: `node:${name}`, message: 'workflow code may do no I/O: Node built-ins belong in activities' },
          ]),
          patterns: [
            { group: ['../activities', '../activities/*', './activities'], allowTypeImports: true, message: 'import activities as types only, and call them through proxyActivities' },
            { group: ['@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@temporalio/testing'], message: 'workflow code uses @temporalio/workflow only' },
            { group: ['../tracker/*', '../mcp/*', '../model/*', '../clients/*', '../sweep/*', 'openai', 'fastify', 'better-sqlite3', '@modelcontextprotocol/*'], allowTypeImports: true, message: 'workflow code may do no I/O: this module belongs in activities' },
          ],
        },
      ],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'not deterministic on replay: take randomness from an activity (or uuid4() from @temporalio/workflow)' }],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'workflow code cannot read the environment: pass it in the input' },
        { name: 'performance', message: 'not the workflow clock: use Date.now(), which is workflow time' },
        { name: 'fetch', message: 'workflow code may do no I/O: call an activity' },
      ],
    },
  },
);
