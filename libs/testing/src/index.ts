export { cleanupRedisPrefix, testRedisPrefix } from './redis';
