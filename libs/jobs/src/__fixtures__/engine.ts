import { bullPrefix, closeRedis, createRedis, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix, FakeClock, pollUntil, TEST_REDIS_URL, testRedisPrefix } from '@runplane/testing';
import type { JobSubmission } from '../engine';
import { encodeWake, handOffChannel, JobKeys } from '../protocol';
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

/** The messages published on an engine's wake channel and its replicas' hand-off channels, heard by a listener. */
export interface WakeRecorder {
  /** Messages heard since the recorder started or was last cleared, in order; only those on `channel` when given. */
  readonly messages: (channel?: string) => string[];
  clear(): void;
  /** The messages heard so far, once a marker published after them came back: none is still on its way. */
  settled(): Promise<string[]>;
  close(): void;
}

/** A replica's origin (its Wakeups' tag), for hearing its hand-off channel. */
export function originOf(engine: RedisJobEngine): string {
  return (engine as unknown as { wakeups: { origin: string } }).wakeups.origin;
}

/** Starts hearing `f`'s wake channel and the hand-off channels (handOffChannel) of the replicas `engines`. */
export async function recordWakes(f: EngineFixture, engines: RedisJobEngine[]): Promise<WakeRecorder> {
  let heard: { channel: string; message: string }[] = [];
  let markers = 0;
  const listener = f.redis.duplicate();
  listener.on('message', (channel: string, message: string) => heard.push({ channel, message }));
  const handOffChannels = engines.map((engine) => handOffChannel(f.keys.wakeChannel, originOf(engine)));
  await listener.subscribe(f.keys.wakeChannel, ...handOffChannels);
  const messages = (channel?: string) =>
    heard.filter((one) => channel === undefined || one.channel === channel).map((one) => one.message);
  return {
    messages,
    clear: () => {
      heard = [];
    },
    async settled() {
      const marker = `x|marker-${++markers}`;
      await f.redis.publish(f.keys.wakeChannel, marker);
      await pollUntil(async () => messages().includes(marker), { description: 'the marker to arrive' });
      return messages().filter((message) => !message.startsWith('x|marker-'));
    },
    close: () => listener.disconnect(),
  };
}

/** Two replicas of one test file and what they publish: see {@link twoReplicas}. */
export interface TwoReplicas {
  f: EngineFixture;
  /** A second replica on the same keys. */
  other: RedisJobEngine;
  /** The wake channel and both replicas' hand-off channels, cleared before each test. */
  wakes: WakeRecorder;
}

/**
 * Registers the hooks of a test file that plays two job-router replicas on one prefix and hears their wakes: started
 * before its tests, cleared before each, checked for reported errors after each, closed after all. The parts are set
 * in a beforeAll: read them in hooks registered after this call, or in tests.
 */
export function twoReplicas(label: string): TwoReplicas {
  const parts = {} as TwoReplicas;
  beforeAll(async () => {
    parts.f = startEngine(label);
    parts.other = parts.f.replica();
    parts.wakes = await recordWakes(parts.f, [parts.f.engine, parts.other]);
  });
  beforeEach(() => parts.wakes.clear());
  afterEach(() => expect(parts.f.errors).toEqual([]));
  afterAll(async () => {
    parts.wakes.close();
    await parts.f.close();
  });
  return parts;
}
