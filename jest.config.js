/** Jest runs the TypeScript sources through SWC; no build step. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.(ts|js)$': ['@swc/jest'] },
  // ES modules only: `cookie` (fastify's inject() pulls it in) and AI SDK 7 (`ai`, `@ai-sdk/*`, `@workflow/serde`, `zod/v4`).
  transformIgnorePatterns: ['/node_modules/(?!(cookie|ai|@ai-sdk|@workflow/serde|zod)/)'],
  testTimeout: 60_000,
  // In-process workers log to .test-logs/, not the console (test/helpers/worker-logs.ts).
  setupFilesAfterEnv: ['<rootDir>/test/helpers/worker-logs.ts'],
  // The golden sweep, the busy-machine sweep and the scratch-project test (a project installing the packed package) run with `npm run test:full`, not in `npm test`.
  testPathIgnorePatterns:
    process.env.FULL_SWEEP === '1' ? ['/node_modules/'] : ['/node_modules/', '\\.full\\.test\\.ts$'],
};
