import { isSentinelUrl, sentinelConnectionOptions } from '@runplane/contracts';
import { Redis, type RedisOptions } from 'ioredis';
import { CoalescingRedis } from './coalescing-redis';

export type { Redis } from 'ioredis';

/** Options for createRedis. */
export interface CreateRedisOptions {
  /** Prefix for every key this client touches; a trailing ":" is added when missing. Never use with BullMQ. */
  keyPrefix?: string;
  connectTimeoutMs?: number;
  /**
   * Writes the commands issued in one event-loop turn with one socket write, without waiting for earlier replies
   * (see {@link CoalescingRedis}). For busy request paths; the order of commands on the connection is kept.
   */
  coalesceWrites?: boolean;
}

const MAX_RECONNECT_DELAY_MS = 5_000;
const lastErrors = new WeakMap<Redis, Error>();
/** Connection errors (refused, reset, timed out, failover) of every client this process made with createRedis. */
let connectionErrors = 0;

/** Normalise a key prefix so "runplane" and "runplane:" mean the same namespace. */
export function normalizePrefix(prefix: string): string {
  return prefix.endsWith(':') ? prefix : `${prefix}:`;
}

/** ioredis client from a redis:// URL with a key prefix, lazyConnect false, bounded reconnect, maxRetriesPerRequest null for BullMQ. */
export function createRedis(url: string, opts: CreateRedisOptions = {}): Redis {
  const options: RedisOptions = {
    lazyConnect: false,
    connectTimeout: opts.connectTimeoutMs ?? 5_000,
    // BullMQ workers need commands to wait across reconnects instead of failing after N retries.
    maxRetriesPerRequest: null,
    // Keep reconnecting (services must survive a Redis restart) but never faster than the capped backoff.
    retryStrategy: (attempt: number) => Math.min(attempt * 100, MAX_RECONNECT_DELAY_MS),
    ...(opts.keyPrefix ? { keyPrefix: normalizePrefix(opts.keyPrefix) } : {}),
  };
  // A Sentinel URL becomes ioredis's sentinels + name: the client asks the Sentinels for the master and follows a
  // failover to the new one. Other URLs are parsed by ioredis itself.
  const Client = opts.coalesceWrites === true ? CoalescingRedis : Redis;
  const redis = isSentinelUrl(url)
    ? new Client({ ...sentinelConnectionOptions(url), ...options })
    : new Client(url, options);
  // Without a listener ioredis prints every connection error; keep the last one for readiness messages instead.
  redis.on('error', (error: Error) => {
    lastErrors.set(redis, error);
    connectionErrors += 1;
  });
  redis.on('ready', () => lastErrors.delete(redis));
  return redis;
}

/**
 * How many connection errors the Redis clients this process created have had, all clients together (BullMQ's and the
 * engine's included): a process is one service, whose metrics report it as `runplane_redis_errors_total`.
 */
export function redisConnectionErrors(): number {
  return connectionErrors;
}

/** Closes a client: QUIT when connected, else drops the socket (QUIT would wait forever for a Redis that is gone). */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit();
  else redis.disconnect();
}

/** What {@link shutdownWithRedis} stops, in order. */
export interface ShutdownWithRedisOptions {
  /** The client the work uses; QUIT last, when it is still connected. */
  redis: Redis;
  /** The interval that starts new work; cleared first. */
  timer?: NodeJS.Timeout;
  /** Waits for the work in flight; told whether Redis is still there (without it, work cannot finish cleanly). */
  drain(redisUp: boolean): Promise<unknown>;
}

/**
 * Stops a timer-driven worker that uses Redis. The order matters: clear the timer so no new round starts; with Redis
 * gone, drop the socket before draining, since queued commands would otherwise wait for a reconnect that may never
 * come and hold the drain (and the shutdown) forever; drain what is in flight; only then QUIT, which would itself
 * wait forever for a Redis that is gone, so it is sent only when Redis was there.
 */
export async function shutdownWithRedis(opts: ShutdownWithRedisOptions): Promise<void> {
  clearInterval(opts.timer);
  const redisUp = opts.redis.status === 'ready';
  if (!redisUp) opts.redis.disconnect();
  await opts.drain(redisUp);
  if (redisUp) await opts.redis.quit();
}

const STARTING = new Set(['wait', 'connecting', 'connect']);

/** PING with a bounded timeout, for /readyz; rejects when Redis is unreachable. */
export async function checkRedis(redis: Redis, timeoutMs = 2_000): Promise<void> {
  const cause = lastErrors.get(redis);
  if (redis.status !== 'ready' && (cause || !STARTING.has(redis.status))) {
    // A client that is reconnecting or closed is not ready; a PING would only sit in the offline queue.
    throw new Error(`Redis is not ready (status ${redis.status}${cause ? `: ${cause.message}` : ''})`);
  }
  let timer: NodeJS.Timeout | undefined;
  let onError: ((error: Error) => void) | undefined;
  // A client still making its first connection gets the timeout to finish it, but a connection error ends the wait.
  const failure = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis PING timed out after ${timeoutMs} ms`)), timeoutMs);
    onError = (error: Error) => reject(new Error(`Redis is not ready: ${error.message}`));
    redis.once('error', onError);
  });
  try {
    const reply = await Promise.race([redis.ping(), failure]);
    if (reply !== 'PONG') throw new Error(`Unexpected Redis PING reply: ${String(reply)}`);
  } finally {
    clearTimeout(timer);
    if (onError) redis.off('error', onError);
  }
}
