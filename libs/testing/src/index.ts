export { cleanupRedisPrefix, testRedisPrefix } from './redis';
export {
  getFreePort,
  getFreePorts,
  isPortOpen,
  isProcessAlive,
  type ProcessGroup,
  signalProcessGroup,
  spawnProcessGroup,
  stopProcessGroup,
} from './process';
export {
  createTestDatabase,
  dropStaleTestDatabases,
  prepareTemplateDatabase,
  TEMPLATE_DATABASE,
  type TestDatabase,
} from './database';
export { pollUntil, type PollOptions } from './poll';
export { FakeClock } from './clock';
