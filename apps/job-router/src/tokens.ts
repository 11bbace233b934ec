/** Injection token for the job-router's JobEngine. */
export const JOB_ENGINE = Symbol('JOB_ENGINE');
/** Injection token for the job engine's own Redis client (no key prefix; closed after the engine). */
export const ENGINE_REDIS = Symbol('ENGINE_REDIS');
/**
 * Injection token for the job-API limiter's Redis client: its own connection, without the Lua commands BullMQ defines
 * on the engine's client (ioredis copies every defined command into each pipeline it builds, and the limiter builds
 * one per counter update).
 */
export const LIMITER_REDIS = Symbol('LIMITER_REDIS');
