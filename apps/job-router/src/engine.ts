import { type Clock, RedisJobEngine } from '@runplane/jobs';
import type { Redis } from '@runplane/queue';
import type { JobRouterConfig } from './config';

/**
 * The job-router's engine: Redis + one BullMQ queue per endpoint, on the configured region and rules. `redis` is the
 * connection BullMQ shares (the engine's `queueOrdered`), `commands` the one free of BullMQ's commands (`queueFree`):
 * see `EngineConnections` in @runplane/jobs for what each guarantees.
 */
export function createJobRouterEngine(deps: {
  redis: Redis;
  commands?: Redis;
  config: JobRouterConfig;
  clock?: Clock;
}): RedisJobEngine {
  const { config } = deps;
  return new RedisJobEngine({
    queueOrdered: deps.redis,
    queueFree: deps.commands,
    prefix: config.REDIS_PREFIX,
    region: config.JOB_REGION,
    clock: deps.clock,
    heartbeatIntervalMs: config.JOB_HEARTBEAT_INTERVAL_MS,
    maxRetries: config.JOB_MAX_RETRIES,
  });
}
