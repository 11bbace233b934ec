/** Injection token for the job-router's JobEngine. */
export const JOB_ENGINE = Symbol('JOB_ENGINE');
/** Injection token for the job engine's own Redis client (no key prefix; closed after the engine). */
export const ENGINE_REDIS = Symbol('ENGINE_REDIS');
/**
 * Injection token for the job-router's second Redis client: the limits and the engine's commands that need no order
 * with BullMQ's. It stays free of the Lua commands BullMQ defines on the engine's client, which ioredis copies into
 * every pipeline it builds (each counter update, each auto-pipelined turn).
 */
export const COMMANDS_REDIS = Symbol('COMMANDS_REDIS');
