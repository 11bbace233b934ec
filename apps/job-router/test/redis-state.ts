import type { Redis } from '@runplane/queue';

/** Every key under `prefix` (raw SCAN, so BullMQ's keys and the limiter's counters too), sorted. */
export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix.replace(/([*?[\]\\])/g, '\\$1')}*`, 'COUNT', 500);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys.sort();
}

async function valueOf(redis: Redis, key: string): Promise<unknown> {
  const type = await redis.type(key);
  switch (type) {
    case 'string':
      return await redis.get(key);
    case 'hash':
      return Object.entries(await redis.hgetall(key)).sort(([a], [b]) => a.localeCompare(b));
    case 'list':
      return await redis.lrange(key, 0, -1);
    case 'set':
      return (await redis.smembers(key)).sort();
    case 'zset':
      return await redis.zrange(key, '0', '-1', 'WITHSCORES');
    case 'stream':
      return await redis.xrange(key, '-', '+');
    default:
      return type;
  }
}

/**
 * Bookkeeping that changes on its own: BullMQ's workers stamp `stalled-check` on a timer, and a worker's waiting
 * take is listed under `takers` for the length of its long-poll (taken off in the background, then expiring).
 */
const HOUSEKEEPING = /:(stalled-check|takers)$/;

/**
 * The job state a request may change: every key under `prefix` with its value, but the rate limiter's counters (which
 * count reads too; tests look at them on their own) and the housekeeping above. Two equal snapshots mean nothing was
 * written.
 */
export async function jobState(redis: Redis, prefix: string): Promise<Record<string, unknown>> {
  const state: Record<string, unknown> = {};
  for (const key of await keysUnder(redis, prefix)) {
    if (key.startsWith(`${prefix}limits:`) || HOUSEKEEPING.test(key)) continue;
    state[key] = await valueOf(redis, key);
  }
  return state;
}
