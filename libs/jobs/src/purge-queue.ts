import type { Redis } from '@runplane/queue';
import { SCRIPTS } from './engine-scripts';
import type { JobKeys } from './protocol';

/** Jobs cancelled per Lua call, and webhooks relayed at once. */
export const PURGE_BATCH = 500;

/** What a purge works with (the engine's connection free of BullMQ's commands, its keys and follow-ups). */
export interface PurgeParts {
  queueFree: Redis;
  keys: JobKeys;
  /** Relays a finished job's webhook (the engine's afterFinish). */
  afterFinish(endpointId: string, jobId: string): Promise<void>;
}

/**
 * Cancels every job of the endpoint queued when the purge starts (running ones go on) and returns how many. The jobs
 * are cancelled oldest first, {@link PURGE_BATCH} per Lua call, so Redis serves other clients between batches; a job
 * taken or cancelled meanwhile is skipped; each leaves the queue in the same step. Then the webhooks of those that
 * had one are relayed.
 */
export async function purgeQueued(parts: PurgeParts, endpointId: string, now: number): Promise<number> {
  const snapshot = await parts.queueFree.zrange(parts.keys.endpoint(endpointId, 'queued'), '0', '-1');
  const cancelled: string[] = [];
  const hooked: string[] = [];
  for (const ids of chunks(snapshot)) {
    const [done, withWebhook] = await SCRIPTS.purge.run(parts.queueFree, {
      base: parts.keys.base,
      endpointId,
      now,
      ids,
    });
    cancelled.push(...done);
    hooked.push(...withWebhook);
  }
  for (const ids of chunks(hooked)) await Promise.all(ids.map((id) => parts.afterFinish(endpointId, id)));
  return cancelled.length;
}

function* chunks(ids: string[]): Generator<string[]> {
  for (let i = 0; i < ids.length; i += PURGE_BATCH) yield ids.slice(i, i + PURGE_BATCH);
}
