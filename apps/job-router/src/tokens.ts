/** Injection token for the job-router's JobEngine. */
export const JOB_ENGINE = Symbol('JOB_ENGINE');
/**
 * Injection token for the Redis connection BullMQ's queues use (no key prefix; closed after the engine): commands on
 * it are ordered with BullMQ's scripts. Create it with `createQueueOrderedRedis` (@runplane/jobs), whose doc states
 * the rule; it is the engine's `queueOrdered` (`EngineConnections`).
 */
export const QUEUE_ORDERED_REDIS = Symbol('QUEUE_ORDERED_REDIS');
/**
 * Injection token for the Redis connection that never carries a BullMQ command: the engine's commands
 * that need no order with BullMQ's. It stays free of the Lua commands BullMQ defines on its client, which ioredis
 * copies into every pipeline it builds. Create it with `createQueueFreeRedis` (@runplane/jobs); it is the engine's
 * `queueFree` (`EngineConnections`).
 */
export const QUEUE_FREE_REDIS = Symbol('QUEUE_FREE_REDIS');
/**
 * Injection token for the limits' own Redis connection (no key prefix). Like the engine's, it must not be
 * auto-pipelined: a batch of acquires is counted at the turn's 'after-io' edge (setImmediate), where a command on an
 * auto-pipelined connection would wait for the next turn's immediates before it is written; here it is written at once.
 */
export const LIMITS_REDIS = Symbol('LIMITS_REDIS');
