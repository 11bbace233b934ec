import {
  WORKER_STATES,
  waitingReasonDto,
  type EndpointWorkerStateDto,
  type WaitingReasonDto,
  type WorkerState,
} from '@runplane/contracts';
import type { Redis } from '@runplane/queue';

export { WORKER_STATES, type WorkerState };

/** A worker and its state; `reason` explains unhealthy and throttled ones (users want to know why jobs wait). */
export type WorkerStateEntry = EndpointWorkerStateDto;

/** The states of an endpoint's workers, with counts per state. */
export interface EndpointWorkerStates {
  workers: WorkerStateEntry[];
  counts: Record<WorkerState, number>;
  /** Why the endpoint's queued jobs wait (null when none waits, or not published). */
  waiting: WaitingReasonDto | null;
}

/** The hash field of the endpoint's waiting reason (worker ids never start with `@`). */
const WAITING_FIELD = '@waiting';

/** States expire if the scheduler stops publishing them (a stale "idle" must not look like capacity). */
const TTL_SECONDS = 30;

/** A change to part of an endpoint's worker states (see {@link WorkerStateStore.patch}). */
export interface WorkerStatesPatch {
  /** Entries written, new or changed. */
  set: readonly WorkerStateEntry[];
  /** Worker ids whose entries go. */
  removed: readonly string[];
  /** The new waiting reason, `null` to drop it, left out to keep it. */
  waiting?: WaitingReasonDto | null;
}

/** The hash fields of worker state entries: worker id → JSON of its state and reason. */
function entryFields(entries: readonly WorkerStateEntry[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const entry of entries) fields[entry.workerId] = JSON.stringify({ state: entry.state, reason: entry.reason });
  return fields;
}

/**
 * Worker states per endpoint in Redis, written by the scheduler's autoscaler and read by the job-router's /health.
 * One hash per endpoint, replaced as a whole or changed in part. `redis` is a client with the deployment's key prefix.
 */
export class WorkerStateStore {
  constructor(private readonly redis: Redis) {}

  private key(endpointId: string): string {
    return `workers:state:${endpointId}`;
  }

  /** Replaces the endpoint's worker states and waiting reason at once: readers see both from one pass. */
  async replace(
    endpointId: string,
    workers: readonly WorkerStateEntry[],
    waiting: WaitingReasonDto | null = null,
  ): Promise<void> {
    const key = this.key(endpointId);
    const transaction = this.redis.multi().del(key);
    const fields = entryFields(workers);
    if (waiting) fields[WAITING_FIELD] = JSON.stringify(waiting);
    if (Object.keys(fields).length > 0) {
      transaction.hset(key, fields);
      transaction.expire(key, TTL_SECONDS);
    }
    await transaction.exec();
  }

  /**
   * Changes part of an endpoint's worker states in one transaction: `set` entries are written, `removed` worker ids
   * dropped, and the waiting reason written (`null`: dropped; left out: kept). The expiry restarts, as on a replace.
   */
  async patch(endpointId: string, change: WorkerStatesPatch): Promise<void> {
    const key = this.key(endpointId);
    const fields = entryFields(change.set);
    const removed = [...change.removed];
    if (change.waiting) fields[WAITING_FIELD] = JSON.stringify(change.waiting);
    else if (change.waiting === null) removed.push(WAITING_FIELD);
    const transaction = this.redis.multi();
    if (removed.length > 0) transaction.hdel(key, ...removed);
    if (Object.keys(fields).length > 0) transaction.hset(key, fields);
    transaction.expire(key, TTL_SECONDS);
    await transaction.exec();
  }

  async read(endpointId: string): Promise<EndpointWorkerStates> {
    const raw = await this.redis.hgetall(this.key(endpointId));
    const counts = Object.fromEntries(WORKER_STATES.map((state) => [state, 0])) as Record<WorkerState, number>;
    const workers: WorkerStateEntry[] = [];
    const { [WAITING_FIELD]: waitingRaw, ...entries } = raw;
    const waiting = waitingRaw ? waitingReasonDto.safeParse(JSON.parse(waitingRaw)) : null;
    for (const [workerId, value] of Object.entries(entries)) {
      const parsed = JSON.parse(value) as { state: WorkerState; reason?: string };
      if (!WORKER_STATES.includes(parsed.state)) continue;
      counts[parsed.state] += 1;
      workers.push({ workerId, state: parsed.state, ...(parsed.reason ? { reason: parsed.reason } : {}) });
    }
    // In WORKER_STATES order, then by id: a stable list for callers to show.
    const rank = (entry: WorkerStateEntry) => WORKER_STATES.indexOf(entry.state);
    workers.sort((a, b) => rank(a) - rank(b) || a.workerId.localeCompare(b.workerId));
    return { workers, counts, waiting: waiting?.success ? waiting.data : null };
  }

  async remove(endpointId: string): Promise<void> {
    await this.redis.del(this.key(endpointId));
  }
}
