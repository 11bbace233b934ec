/** Injection token for the job-router's JobEngine. */
export const JOB_ENGINE = Symbol('JOB_ENGINE');
