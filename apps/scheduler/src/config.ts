import { loadConfigOrExit } from '@runplane/config';
import { serviceEnvSchema } from '@runplane/http';

/** Scheduler environment. */
export const schedulerEnvSchema = serviceEnvSchema(8082);
/** Parsed scheduler configuration. */
export type SchedulerConfig = ReturnType<typeof schedulerEnvSchema.parse>;

/** Parses the process environment once; a bad value stops the process with a message naming it. */
export function loadSchedulerConfig(): SchedulerConfig {
  return loadConfigOrExit(schedulerEnvSchema, process.env);
}
