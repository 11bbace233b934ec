import { join } from 'node:path';
import type { AppPorts, RunnerConfig } from './config';

/** The Runplane apps, in start order: the five services and the S3 endpoint of the local network volumes. */
export const APP_NAMES = [
  'gateway',
  'job-router',
  'scheduler',
  'webhook-dispatcher',
  'billing-aggregator',
  'volume-s3',
] as const;

/** One of the app names. */
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
    SCHEDULER_VOLUMES_DIR: join(config.stateDir, 'volumes'),
  };
}

/**
 * The S3 endpoint serves the directories the scheduler gives Pods on network volumes, for the local machines' data
 * center; without a built engine (`npm run s3:build`) it still starts and answers S3 requests 503.
 */
function volumeS3Env(config: RunnerConfig): Record<string, string> {
  return {
    VOLUME_S3_HOST: config.host,
    VOLUME_S3_PORT: String(config.ports['volume-s3']),
    VOLUME_S3_DATA_CENTER: config.inheritedEnv.SCHEDULER_LOCAL_DATA_CENTER ?? 'EU-RO-1',
    VOLUME_S3_VOLUMES_DIR: join(config.stateDir, 'volumes'),
    VOLUME_S3_METADATA_DIR: join(config.stateDir, 'volume-s3'),
    VOLUME_S3_ENGINE_OPTIONAL: 'true',
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
  // The gateway, the webhook-dispatcher and the S3 endpoint open sealed secrets (registry passwords, webhook signing
  // secrets, S3 keys).
  if (name === 'gateway' || name === 'webhook-dispatcher' || name === 'volume-s3')
    env.RUNPLANE_ENCRYPTION_KEY = backends.encryptionKey;
  else delete env.RUNPLANE_ENCRYPTION_KEY;
  if (name === 'scheduler') Object.assign(env, schedulerEnv(config));
  if (name === 'volume-s3') Object.assign(env, volumeS3Env(config));
  return env;
}

/** Launch specs for all the apps, each run by this same Node through the SWC loader. */
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
