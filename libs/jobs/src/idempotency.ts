import { hash } from 'node:crypto';
import type { Redis } from '@runplane/queue';
import type { JobKeys } from './protocol';
import { IDEMPOTENCY_WINDOW_MS } from './policy';

/** Redis key of an endpoint's Idempotency-Key (hashed: keys are client text of any length). */
export function idempotencyKey(keys: JobKeys, endpointId: string, clientKey: string): string {
  return keys.idempotency(endpointId, hash('sha256', clientKey, 'hex'));
}

/**
 * Reserves `key` for job `id` unless a job claimed it within the last 24 h (judged on the injected clock; the Redis
 * expiry only collects garbage). Returns the id that owns the key: `id` itself, or the first job's.
 */
export async function claimIdempotencyKey(redis: Redis, key: string, id: string, now: number): Promise<string> {
  const value = `${now} ${id}`;
  if ((await redis.set(key, value, 'PX', IDEMPOTENCY_WINDOW_MS, 'NX')) === 'OK') return id;
  const stored = (await redis.get(key)) ?? '';
  const [at, firstId] = stored.split(' ');
  if (firstId && now - Number(at) < IDEMPOTENCY_WINDOW_MS) return firstId;
  await redis.set(key, value, 'PX', IDEMPOTENCY_WINDOW_MS);
  return id;
}
