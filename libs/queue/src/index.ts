export {
  checkRedis,
  closeRedis,
  createRedis,
  normalizePrefix,
  redisConnectionErrors,
  shutdownWithRedis,
} from './redis';
export type { CreateRedisOptions, Redis, ShutdownWithRedisOptions } from './redis';
export { defineLuaScript, LuaScript, NamedLuaScript } from './lua-script';
export type { LuaCall } from './lua-script';
export { defineJobCatalog, JobCatalogError, jobNamesIn } from './catalog';
export type { JobBackoff, JobCatalog, JobData, JobDefinition, JobNamesIn, JobPayload, QueueNameOf } from './catalog';
export { assertQueueConnection, bullPrefix, createQueue } from './queues';
export type { AddJobOptions, JobEnvelope, QueueConnection, TypedQueue } from './queues';
export { createWorker, UnrecoverableError } from './workers';
export type { JobContext, JobHandlers, TypedWorker, WorkerOptions } from './workers';
export { warnOfError } from './warnings';
export * from './catalogs';
