export { checkRedis, createRedis, normalizePrefix } from './redis';
export type { CreateRedisOptions, Redis } from './redis';
