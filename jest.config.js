/** Jest runs the TypeScript sources through SWC; no build step. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.(ts|js)$': ['@swc/jest'] },
  // fastify's inject() pulls in `cookie`, which ships ES modules only.
  transformIgnorePatterns: ['/node_modules/(?!cookie/)'],
  testTimeout: 60_000,
};
