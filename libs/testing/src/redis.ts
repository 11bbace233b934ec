import { randomBytes } from 'node:crypto';
import type { Redis } from '@runplane/queue';

/** Unique Redis key prefix for one test file or test ("test:<label>:<pid>:<random>:"), so parallel runs never collide. */
export function testRedisPrefix(label: string): string {
  const safeLabel = label.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 40);
  return `test:${safeLabel}:${process.pid}:${randomBytes(4).toString('hex')}:`;
}

/** Delete every key under `prefix` (SCAN + UNLINK); `prefix` may be raw or relative to the client's own keyPrefix. */
export async function cleanupRedisPrefix(redis: Redis, prefix: string): Promise<number> {
  // SCAN patterns and returned keys are raw, while UNLINK arguments get the client's own keyPrefix prepended.
  const clientPrefix = redis.options.keyPrefix ?? '';
  const rawPrefix = prefix.startsWith(clientPrefix) ? prefix : `${clientPrefix}${prefix}`;
  const pattern = `${rawPrefix.replace(/([*?[\]\\])/g, '\\$1')}*`;
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) {
      deleted += await redis.unlink(...keys.map((key) => key.slice(clientPrefix.length)));
    }
  } while (cursor !== '0');
  return deleted;
}
