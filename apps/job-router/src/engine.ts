import { type Clock, RedisJobEngine } from '@runplane/jobs';
import type { Redis } from '@runplane/queue';
import type { JobRouterConfig } from './config';

/** The job-router's engine: Redis + one BullMQ queue per endpoint, on the configured region and rules. */
export function createJobRouterEngine(deps: {
  redis: Redis;
  commands?: Redis;
  config: JobRouterConfig;
  clock?: Clock;
}): RedisJobEngine {
  const { config } = deps;
  return new RedisJobEngine({
    redis: deps.redis,
    commands: deps.commands,
    prefix: config.REDIS_PREFIX,
    region: config.JOB_REGION,
    clock: deps.clock,
    heartbeatIntervalMs: config.JOB_HEARTBEAT_INTERVAL_MS,
    maxRetries: config.JOB_MAX_RETRIES,
  });
}
