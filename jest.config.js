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
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools'],
  testMatch: ['**/*.spec.ts', '**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  moduleNameMapper: { '^@runplane/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts' },
  globalSetup: '<rootDir>/libs/testing/src/jest-global-setup.ts',
  testTimeout: 60000,
};
