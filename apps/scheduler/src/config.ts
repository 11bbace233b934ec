import { resolve } from 'node:path';
import { envInt, loadConfigOrExit, z } from '@runplane/config';
import { serviceEnvSchema } from '@runplane/http';
import { kubeDriverEnv } from './drivers/kubernetes/kube-driver-config';
import { localMachinesSchema } from './drivers/local/local-inventory';

const jsonMachines = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value.trim() === '') return undefined;
    try {
      return localMachinesSchema.parse(JSON.parse(value));
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `expected a JSON array of machines: ${(error as Error).message}` });
      return z.NEVER;
    }
  });

/**
 * Scheduler environment: the common service settings, the compute driver, where workers reach the job API, and the
 * timing of the control loops.
 */
export const schedulerEnvSchema = serviceEnvSchema(8082).extend({
  /** Which compute driver runs Pods and workers. */
  SCHEDULER_DRIVER: z.enum(['local', 'kubernetes']).default('local'),
  /** The job-router's base URL as workers reach it (worker env RUNPOD_WEBHOOK_*). */
  SCHEDULER_JOB_API_URL: z.url({ error: 'expected an http(s) URL' }).default('http://127.0.0.1:8081'),
  /** Local driver: pid files and process logs. */
  SCHEDULER_STATE_DIR: z.string().min(1).default(resolve('.runplane', 'scheduler')),
  /** Local driver: working directory of workload processes. */
  SCHEDULER_WORK_DIR: z.string().min(1).default(process.cwd()),
  /** Local driver: machines (JSON array); default 2 × 8 RTX 4090, 1 × 8 H100 and a CPU machine. */
  SCHEDULER_LOCAL_MACHINES: jsonMachines,
  /** Local driver: network volumes, one directory each (the volume-s3 endpoint's VOLUME_S3_VOLUMES_DIR). */
  SCHEDULER_VOLUMES_DIR: z.string().min(1).default(resolve('.runplane', 'volumes')),
  /** Local driver: data center of the default machines. */
  SCHEDULER_LOCAL_DATA_CENTER: z.string().min(1).default('EU-RO-1'),
  /** How often the control loops run even without events. */
  SCHEDULER_TICK_MS: envInt({ min: 50, max: 60_000, default: 1_000 }),
  /** Grace between SIGTERM and SIGKILL when a workload is stopped. */
  SCHEDULER_STOP_GRACE_MS: envInt({ min: 0, max: 600_000, default: 10_000 }),
  /** Leader lease: another replica takes over this long after the leader stops renewing. */
  SCHEDULER_LEADER_TTL_MS: envInt({ min: 1_000, max: 600_000, default: 10_000 }),
  /** Worker heartbeat interval (RUNPOD_PING_INTERVAL); match the job-router's JOB_HEARTBEAT_INTERVAL_MS. */
  SCHEDULER_WORKER_PING_MS: envInt({ min: 1_000, max: 3_600_000, default: 10_000 }),
  /** Kubernetes driver: kubeconfig, namespace, node selector, request budget, storage class, leader Lease. */
  ...kubeDriverEnv,
});
/** Parsed scheduler configuration. */
export type SchedulerConfig = z.infer<typeof schedulerEnvSchema>;

/** Parses the process environment once; a bad value stops the process with a message naming it. */
export function loadSchedulerConfig(): SchedulerConfig {
  return loadConfigOrExit(schedulerEnvSchema, process.env);
}
