/** Injection token for the job-router's JobEngine. */
export const JOB_ENGINE = Symbol('JOB_ENGINE');
/** Injection token for the job engine's own Redis client (no key prefix; closed after the engine). */
export const ENGINE_REDIS = Symbol('ENGINE_REDIS');
