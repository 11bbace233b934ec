import { loadConfigOrExit } from '@runplane/config';
import { serviceEnvSchema } from '@runplane/http';

/** JobRouter environment. */
export const jobRouterEnvSchema = serviceEnvSchema(8081);
/** Parsed job-router configuration. */
export type JobRouterConfig = ReturnType<typeof jobRouterEnvSchema.parse>;

/** Parses the process environment once; a bad value stops the process with a message naming it. */
export function loadJobRouterConfig(): JobRouterConfig {
  return loadConfigOrExit(jobRouterEnvSchema, process.env);
}
