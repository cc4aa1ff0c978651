/**
 * Jest: TypeScript through SWC, in two projects. `standalone` suites need nothing but themselves (pure logic, or
 * services they start on their own: anvil, their own PostgreSQL, the in-memory Temporal service); `database` suites
 * share one real PostgreSQL that the global setup starts, migrates, seeds and backfills once (see test/setup), and
 * each test file clones its template database. A run of standalone suites alone never starts that PostgreSQL.
 */
const STANDALONE = '/test/(unit|contracts|db|readme|client)/.*\\.test\\.ts$|/test/webhooks/(url-guard|secret-box)\\.test\\.ts$|/test/(temporal/(conformance|faults|replay|slow-replay)|workflows/replay|(start|production)/database-killed|campaign/run)\\.test\\.ts$';

const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }], '/node_modules/eventsource-parser/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  // The client package (client/, an npm workspace) from its source, as the product's own modules are; its one ESM-only
  // dependency is compiled like them.
  moduleNameMapper: { '^tokenized-stock-issuer-client$': '<rootDir>/client/src/index.ts' },
  transformIgnorePatterns: ['/node_modules/(?!eventsource-parser/)'],
};

module.exports = {
  testTimeout: 60_000,
  // Both cores: the suites wait on PostgreSQL, anvil and Temporal more than they compute.
  maxWorkers: 2,
  testSequencer: '<rootDir>/test/setup/slow-first-sequencer.mjs',
  projects: [
    { ...shared, displayName: 'standalone', testRegex: STANDALONE },
    {
      ...shared,
      displayName: 'database',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', STANDALONE],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
  ],
};
