import { resolve } from 'node:path';

/** Ports of the apps, keyed by app name. */
export interface AppPorts {
  gateway: number;
  'job-router': number;
  scheduler: number;
  'webhook-dispatcher': number;
  'billing-aggregator': number;
  /** The S3 endpoint of the local data center's network volumes. */
  'volume-s3': number;
}

/** Everything the platform runner takes from its environment, parsed once. */
export interface RunnerConfig {
  repoRoot: string;
  stateDir: string;
  host: string;
  ports: AppPorts;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  redisPrefix: string | undefined;
  logLevel: string;
  otelEndpoint: string | undefined;
  encryptionKey: string | undefined;
  catalogFile: string | undefined;
  readyTimeoutMs: number;
  shutdownGraceMs: number;
  /** How a crashed app is restarted, and how many crashes within the window stop the platform. */
  restart: { backoffMs: number; crashLimit: number; windowMs: number };
  /** The environment handed to child processes (PATH, locale, anything the apps read themselves). */
  inheritedEnv: Record<string, string>;
}

/** Raised for an invalid runner variable; the message names the variable. */
export class RunnerConfigError extends Error {}

type Env = Record<string, string | undefined>;

function optional(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** An integer variable's default and inclusive range. */
interface IntegerRule {
  fallback: number;
  min: number;
  max: number;
}

function integer(env: Env, name: string, { fallback, min, max }: IntegerRule): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RunnerConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function port(env: Env, name: string, fallback: number): number {
  return integer(env, name, { fallback, min: 1, max: 65535 });
}

function encryptionKey(env: Env): string | undefined {
  const value = optional(env, 'RUNPLANE_ENCRYPTION_KEY');
  const hex = /^[0-9a-fA-F]{64}$/;
  const base64 = /^[A-Za-z0-9+/]{43}=?$/;
  if (value !== undefined && !hex.test(value) && !base64.test(value)) {
    throw new RunnerConfigError('RUNPLANE_ENCRYPTION_KEY must be 64 hex characters or base64 of 32 bytes');
  }
  return value;
}

function definedOnly(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

/** Parses the runner's variables; `repoRoot` anchors the default state dir and the app entry points. */
export function readRunnerConfig(env: Env, repoRoot: string): RunnerConfig {
  const ports: AppPorts = {
    gateway: port(env, 'RUNPLANE_GATEWAY_PORT', 8080),
    'job-router': port(env, 'RUNPLANE_JOB_API_PORT', 8081),
    scheduler: port(env, 'RUNPLANE_SCHEDULER_PORT', 8082),
    'webhook-dispatcher': port(env, 'RUNPLANE_WEBHOOK_PORT', 8083),
    'billing-aggregator': port(env, 'RUNPLANE_BILLING_PORT', 8084),
    'volume-s3': port(env, 'RUNPLANE_S3_PORT', 8089),
  };
  if (new Set(Object.values(ports)).size !== Object.values(ports).length) {
    throw new RunnerConfigError('RUNPLANE_*_PORT values must all differ');
  }
  const stateDir = optional(env, 'RUNPLANE_STATE_DIR');
  return {
    repoRoot,
    stateDir: stateDir === undefined ? resolve(repoRoot, '.runplane') : resolve(stateDir),
    host: optional(env, 'RUNPLANE_HOST') ?? '127.0.0.1',
    ports,
    databaseUrl: optional(env, 'DATABASE_URL'),
    redisUrl: optional(env, 'REDIS_URL'),
    redisPrefix: optional(env, 'REDIS_PREFIX'),
    logLevel: optional(env, 'LOG_LEVEL') ?? 'info',
    otelEndpoint: optional(env, 'OTEL_EXPORTER_OTLP_ENDPOINT'),
    encryptionKey: encryptionKey(env),
    catalogFile: optional(env, 'RUNPLANE_CATALOG_FILE'),
    readyTimeoutMs: integer(env, 'RUNPLANE_READY_TIMEOUT_MS', { fallback: 180_000, min: 1_000, max: 3_600_000 }),
    shutdownGraceMs: integer(env, 'RUNPLANE_SHUTDOWN_GRACE_MS', { fallback: 10_000, min: 0, max: 600_000 }),
    restart: {
      backoffMs: integer(env, 'RUNPLANE_RESTART_BACKOFF_MS', { fallback: 1_000, min: 0, max: 300_000 }),
      crashLimit: integer(env, 'RUNPLANE_CRASH_LIMIT', { fallback: 5, min: 1, max: 1_000 }),
      windowMs: integer(env, 'RUNPLANE_CRASH_WINDOW_MS', { fallback: 300_000, min: 1, max: 86_400_000 }),
    },
    inheritedEnv: definedOnly(env),
  };
}
