import { bullPrefix, EndpointQueues, type Redis } from '@runplane/queue';
import { SCRIPTS } from './engine-scripts';
import type { JobKeys } from './protocol';

/** Jobs cancelled per Lua call, and queue entries dropped or webhooks relayed at once. */
export const PURGE_BATCH = 500;

/** What a purge works with (the engine's connection free of BullMQ's commands, its keys and follow-ups). */
export interface PurgeParts {
  queueFree: Redis;
  keys: JobKeys;
  /** Removes a job's queue entry (the dispatcher's dropEntry). */
  dropEntry(endpointId: string, jobId: string): Promise<void>;
  /** The deployment's key prefix (the engine's `prefix` option), under which BullMQ keeps the endpoint queues. */
  prefix: string;
  /** Relays a finished job's webhook (the engine's afterFinish). */
  afterFinish(endpointId: string, jobId: string): Promise<void>;
}

/**
 * Cancels every job of the endpoint queued when the purge starts (running ones go on) and returns how many. The jobs
 * are cancelled oldest first, {@link PURGE_BATCH} per Lua call, so Redis serves other clients between batches; a job
 * taken or cancelled meanwhile is skipped. Then their queue entries go, in wait-list order: BullMQ pushes new entries
 * at the head of its wait list and its removal scans from the head, so this order finds each entry at once (any other
 * order scans past the entries still there, a cost growing with the square of the queue). Then the webhooks of those
 * that had one.
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
  const dropping = await inWaitListOrder(parts, endpointId, cancelled);
  for (const ids of chunks(dropping)) await Promise.all(ids.map((id) => parts.dropEntry(endpointId, id)));
  for (const ids of chunks(hooked)) await Promise.all(ids.map((id) => parts.afterFinish(endpointId, id)));
  return cancelled.length;
}

/** The ids, those in the wait list first in its order (head first), then the rest (entries a taker holds, if any). */
async function inWaitListOrder(parts: PurgeParts, endpointId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return ids;
  const rest = new Set(ids);
  // BullMQ's wait list of the endpoint queue ("<bull prefix>:<queue>:wait"), read only to order the removals.
  const waitList = `${bullPrefix(parts.prefix)}:${EndpointQueues.queueName(endpointId)}:wait`;
  const ordered = (await parts.queueFree.lrange(waitList, 0, -1)).filter((id) => rest.delete(id));
  return [...ordered, ...rest];
}

function* chunks(ids: string[]): Generator<string[]> {
  for (let i = 0; i < ids.length; i += PURGE_BATCH) yield ids.slice(i, i + PURGE_BATCH);
}
