/** Jest runs TypeScript through SWC (decorator metadata on) against real Postgres/Redis. */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2023',
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};
const common = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  moduleNameMapper: { '^@runplane/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts' },
};
// Two projects: every spec against Postgres/Redis, and Kubernetes specs (*.kube.spec.ts), whose global
// setup builds (if missing) and starts one shared control plane. A project's global setup runs only
// when some of its tests are selected, so `npm run test:unit -- some/file.spec.ts` starts no cluster
// (`--selectProjects kube` runs only the Kubernetes specs).
module.exports = {
  testTimeout: 60000,
  // Test files run in a worker process (never in band, even with one worker on two cores), and a worker that holds
  // more than this after a file is replaced: each file's Nest applications leave memory behind, and one process
  // running the whole suite outgrew its heap.
  workerIdleMemoryLimit: '1536MB',
  projects: [
    {
      ...common,
      displayName: 'default',
      testMatch: ['**/*.spec.ts', '**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.kube\\.spec\\.ts$'],
      globalSetup: '<rootDir>/libs/testing/src/jest-global-setup.ts',
    },
    {
      ...common,
      displayName: 'kube',
      testMatch: ['**/*.kube.spec.ts'],
      globalSetup: '<rootDir>/tools/k8s-testenv/jest-global-setup.ts',
      globalTeardown: '<rootDir>/tools/k8s-testenv/jest-global-teardown.ts',
    },
  ],
};
