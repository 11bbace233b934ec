import { join } from 'node:path';
import type { AppPorts, RunnerConfig } from './config';

/** The five Runplane apps, in start order. */
export const APP_NAMES = ['gateway', 'job-router', 'scheduler', 'webhook-dispatcher', 'billing-aggregator'] as const;

/** One of the five app names. */
export type AppName = (typeof APP_NAMES)[number] & keyof AppPorts;

/** How to launch one app as a child process. */
export interface AppLaunch {
  name: AppName;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  port: number;
}

/** Connection details shared by every app. */
export interface Backends {
  databaseUrl: string;
  redisUrl: string;
  encryptionKey: string;
}

/** Where the scheduler's local driver keeps its pid files under the runner. */
export function schedulerStateDir(config: RunnerConfig): string {
  return join(config.stateDir, 'scheduler');
}

/**
 * The scheduler runs Pods and workers as local processes: it needs where workers reach the job API, where to keep
 * its pid files, and the directory relative start commands (e.g. examples/echo-worker) resolve against.
 */
function schedulerEnv(config: RunnerConfig): Record<string, string> {
  return {
    SCHEDULER_DRIVER: config.inheritedEnv.SCHEDULER_DRIVER ?? 'local',
    SCHEDULER_JOB_API_URL: `http://${config.host}:${config.ports['job-router']}`,
    SCHEDULER_STATE_DIR: schedulerStateDir(config),
    SCHEDULER_WORK_DIR: config.inheritedEnv.SCHEDULER_WORK_DIR ?? config.repoRoot,
  };
}

function appEnv(config: RunnerConfig, name: AppName, backends: Backends): Record<string, string> {
  const env: Record<string, string> = {
    ...config.inheritedEnv,
    PORT: String(config.ports[name]),
    HOST: config.host,
    DATABASE_URL: backends.databaseUrl,
    REDIS_URL: backends.redisUrl,
    LOG_LEVEL: config.logLevel,
  };
  if (config.redisPrefix !== undefined) env.REDIS_PREFIX = config.redisPrefix;
  if (config.otelEndpoint !== undefined) env.OTEL_EXPORTER_OTLP_ENDPOINT = config.otelEndpoint;
  // The gateway and the webhook-dispatcher open sealed secrets (registry passwords, webhook signing secrets).
  if (name === 'gateway' || name === 'webhook-dispatcher') env.RUNPLANE_ENCRYPTION_KEY = backends.encryptionKey;
  else delete env.RUNPLANE_ENCRYPTION_KEY;
  if (name === 'scheduler') Object.assign(env, schedulerEnv(config));
  return env;
}

/** Launch specs for all five apps, each run by this same Node through the SWC loader. */
export function appLaunches(config: RunnerConfig, backends: Backends): AppLaunch[] {
  return APP_NAMES.map((name) => ({
    name,
    command: process.execPath,
    args: ['-r', '@swc-node/register', join(config.repoRoot, 'apps', name, 'src', 'main.ts')],
    cwd: config.repoRoot,
    env: appEnv(config, name, backends),
    port: config.ports[name],
  }));
}
