import { bullPrefix, closeRedis, createRedis, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix, FakeClock, pollUntil, TEST_REDIS_URL, testRedisPrefix } from '@runplane/testing';
import type { JobSubmission } from '../engine';
import { encodeWake, JobKeys } from '../protocol';
import type { RedisJobEngineOptions } from '../engine-options';
import { RedisJobEngine } from '../redis-job-engine';

/** A job engine on the real Redis under its own prefix, with a fake clock. */
export interface EngineFixture {
  engine: RedisJobEngine;
  clock: FakeClock;
  redis: Redis;
  prefix: string;
  /** The engine's keys and wake channel. */
  keys: JobKeys;
  errors: Error[];
  /** The ids in the endpoint's queue, oldest first (the engine's `queued` sorted set). */
  queued(endpointId: string): Promise<string[]>;
  /** Publishes the wake another replica sends for a job it queued (`t|<ep>|<origin>|<jobId>`). */
  wakeFromAnotherReplica(endpointId: string, jobId: string): Promise<number>;
  /** Another engine on the same keys and clock, as a second job-router replica would run; closed by `close()`. */
  replica(): RedisJobEngine;
  close(): Promise<void>;
}

/** Starts an engine for one test file; `close()` stops it and deletes its keys. */
export function startEngine(label: string, options: Partial<RedisJobEngineOptions> = {}): EngineFixture {
  const redis = createRedis(TEST_REDIS_URL);
  const prefix = testRedisPrefix(label);
  const clock = new FakeClock();
  const errors: Error[] = [];
  const onError = (e: Error) => errors.push(e);
  const engine = new RedisJobEngine({ queueOrdered: redis, prefix, region: 'u1', clock, onError, ...options });
  const replicas: RedisJobEngine[] = [];
  const keys = JobKeys.ofPrefix(prefix);
  return {
    engine,
    clock,
    redis,
    prefix,
    keys,
    errors,
    queued: (endpointId) => redis.zrange(keys.endpoint(endpointId, 'queued'), '0', '-1'),
    wakeFromAnotherReplica: (endpointId, jobId) =>
      redis.publish(keys.wakeChannel, encodeWake({ type: 'queued', endpointId, origin: 'another-replica', jobId })),
    replica() {
      const replica = new RedisJobEngine({ queueOrdered: redis, prefix, region: 'u1', clock, onError, ...options });
      replicas.push(replica);
      return replica;
    },
    async close() {
      await Promise.all([engine, ...replicas].map((each) => each.close()));
      await cleanupRedisPrefix(redis, prefix);
      await cleanupRedisPrefix(redis, bullPrefix(prefix));
      await closeRedis(redis);
    },
  };
}

/** A /run submission with defaults. */
export function submission(endpointId: string, overrides: Partial<JobSubmission> = {}): JobSubmission {
  return {
    endpointId,
    accountId: 'acct-1',
    input: { prompt: 'hello' },
    extra: {},
    policy: { executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: false },
    sync: false,
    ...overrides,
  };
}

/** Resolves once `engine` has `count` takes waiting for a wake-up. */
export function parkedOn(engine: RedisJobEngine, count: number): Promise<unknown> {
  return pollUntil(() => engine.parked() === count, { intervalMs: 1 });
}
