import { NotFoundError } from '@runplane/contracts';
import type { Redis } from '@runplane/queue';
import type { JobCounts, JobRecord, JobStatus, JobSubmission, LiveWorkers } from './engine';
import { JOB_POLICY_LIMITS, RESULT_RETENTION } from './policy';
import type { JobKeys } from './protocol';

/** What a job's hash holds (all strings, as Redis returns them). */
export type JobHash = Record<string, string>;

function num(value: string | undefined): number | undefined {
  return value === undefined || value === '' ? undefined : Number(value);
}

/** Maps job `id`'s hash to the /status record, keys in RunPod's order; running jobs report execution time so far. */
export function toJobRecord(id: string, hash: JobHash, now: number): JobRecord {
  const takenAt = num(hash['takenAt']);
  const queuedAt = num(hash['queuedAt'] ?? hash['submittedAt']);
  const timed = takenAt !== undefined && queuedAt !== undefined;
  return {
    id,
    status: hash['status'] as JobStatus,
    ...(timed
      ? {
          delayTime: Math.max(0, takenAt - queuedAt),
          executionTime: Math.max(0, (num(hash['doneAt']) ?? now) - takenAt),
        }
      : {}),
    ...(hash['output'] !== undefined ? { output: JSON.parse(hash['output']) as unknown } : {}),
    ...(hash['error'] !== undefined ? { error: hash['error'] } : {}),
    ...(hash['workerId'] ? { workerId: hash['workerId'] } : {}),
    retries: num(hash['retries']) ?? 0,
  };
}

/** `[member, score, ...]` as ZRANGE WITHSCORES answers it, as pairs. */
function scored(reply: string[]): [string, number][] {
  const pairs: [string, number][] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) pairs.push([reply[i] ?? '', Number(reply[i + 1])]);
  return pairs;
}

/** The members of `entries`, highest score first, each once (a re-queued job is in both lists), at most `limit`. */
function newestFirst(entries: [string, number][], limit: number): string[] {
  const ids = new Set<string>();
  for (const [id] of entries.sort((a, b) => b[1] - a[1])) {
    if (ids.size === limit) break;
    ids.add(id);
  }
  return [...ids];
}

/** A job's `extra` when it has none (JSON); its record leaves the field out. */
export const NO_EXTRA = '{}';

/**
 * The hash fields of a job just submitted (field/value pairs for the SUBMIT script), its `ttlAt` when its ttl is not
 * the default (the same it writes as a field), and the size of what a hand-off message would carry (its input and
 * extra, JSON). Fields at their default are left out, and readers take the default
 * when a field is absent: `retries` (0), `lowPriority` and `sync` ('1' only when set), `extra` ('{}'),
 * `executionTimeoutMs` (600000), `retentionMs` (that of /run or /runsync), `queuedAt` (`submittedAt`: not re-queued
 * yet) and `ttlAt` (`submittedAt` + 24 h); the Lua scripts read them through `timeoutOf`, `retentionOf` and `ttlAtOf`.
 * The id is the key's own. Jobs recorded with these fields written out (and an `id` field) read the same.
 */
export function newRecordFields(
  job: JobSubmission,
  now: number,
): { fields: (string | number)[]; ttlAt?: number; handOffChars: number } {
  const { executionTimeoutMs, ttlMs, lowPriority } = job.policy;
  const defaultRetentionMs = job.sync ? RESULT_RETENTION.syncMs : RESULT_RETENTION.runMs;
  const retentionMs = job.retentionMs ?? defaultRetentionMs;
  const input = JSON.stringify(job.input);
  const extra = JSON.stringify(job.extra);
  const ttlAt = ttlMs !== JOB_POLICY_LIMITS.ttl.default ? now + ttlMs : undefined;
  const fields: (string | number)[] = [
    'status', 'IN_QUEUE', 'accountId', job.accountId, 'input', input, ...(extra !== NO_EXTRA ? ['extra', extra] : []),
    ...(executionTimeoutMs !== JOB_POLICY_LIMITS.executionTimeout.default ? ['executionTimeoutMs', executionTimeoutMs] : []),
    ...(lowPriority ? ['lowPriority', '1'] : []), ...(job.sync ? ['sync', '1'] : []),
    ...(retentionMs !== defaultRetentionMs ? ['retentionMs', retentionMs] : []), 'submittedAt', now,
    ...(ttlAt !== undefined ? ['ttlAt', ttlAt] : []),
    ...(job.webhook !== undefined ? ['webhook', job.webhook] : []), ...(job.traceparent ? ['traceparent', job.traceparent] : []),
  ]; // prettier-ignore
  return { fields, ttlAt, handOffChars: input.length + extra.length };
}

/** Read side of the engine's keys: records, recent jobs, counts. */
export class JobReader {
  constructor(
    private readonly redis: Redis,
    private readonly keys: JobKeys,
  ) {}

  /** The job's hash, or NotFoundError (unknown, expired, or another endpoint's). */
  async hash(endpointId: string, jobId: string): Promise<JobHash> {
    const hash = await this.redis.hgetall(this.keys.job(endpointId, jobId));
    if (!hash['status']) throw new NotFoundError(`Job ${jobId}`);
    return hash;
  }

  /**
   * Up to `limit` most recent jobs of the endpoint, newest first: the queued ones read from the queue (by queue time),
   * the others from `recent` (by submission time; a job enters it when it leaves the queue, see `remember` in lua.ts).
   */
  async recent(endpointId: string, limit: number, now: number): Promise<JobRecord[]> {
    const [queued, left] = await Promise.all([
      this.redis.zrevrange(this.keys.endpoint(endpointId, 'queued'), 0, limit - 1, 'WITHSCORES'),
      this.redis.zrevrange(this.keys.endpoint(endpointId, 'recent'), 0, limit - 1, 'WITHSCORES'),
    ]);
    const ids = newestFirst([...scored(queued), ...scored(left)], limit);
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.job(endpointId, id));
    const replies = (await pipeline.exec()) ?? [];
    return replies
      .map(([, hash], index) => ({ id: ids[index] ?? '', hash: hash as JobHash }))
      .filter(({ hash }) => hash && hash['status'])
      .map(({ id, hash }) => toJobRecord(id, hash, now));
  }

  /** /health job counts: queued and running now, finished and retried since the endpoint's first job. */
  async counts(endpointId: string): Promise<JobCounts> {
    const [queued, running, stats] = await Promise.all([
      this.redis.zcard(this.keys.endpoint(endpointId, 'queued')),
      this.redis.scard(this.keys.endpoint(endpointId, 'running')),
      this.redis.hmget(this.keys.endpoint(endpointId, 'stats'), 'COMPLETED', 'FAILED', 'TIMED_OUT', 'retried'),
    ]);
    const [completed, failed, timedOut, retried] = stats.map((value) => Number(value ?? 0)) as number[];
    return {
      completed: completed ?? 0,
      failed: (failed ?? 0) + (timedOut ?? 0),
      inProgress: running,
      inQueue: queued,
      retried: retried ?? 0,
    };
  }

  /** Queued jobs that may trigger scale-up (lowPriority ones excluded), for the autoscaler. */
  async scalingQueue(endpointId: string): Promise<number> {
    const [queued, low] = await Promise.all([
      this.redis.zcard(this.keys.endpoint(endpointId, 'queued')),
      this.redis.scard(this.keys.endpoint(endpointId, 'low')),
    ]);
    return Math.max(0, queued - low);
  }

  /**
   * Workers seen since `since`, by id: idle ones hold no job, running ones hold at least one. A worker the scheduler
   * removed (retired) is neither from its removal on, though its process may still ping while it stops.
   */
  async workers(endpointId: string, since: number): Promise<LiveWorkers> {
    const ids = await this.redis.zrangebyscore(this.keys.endpoint(endpointId, 'workers'), since, '+inf');
    if (ids.length === 0) return { idle: [], running: [] };
    const pipeline = this.redis.pipeline();
    for (const id of ids)
      pipeline.scard(this.keys.workerJobs(endpointId, id)).exists(this.keys.retired(endpointId, id));
    const replies = ((await pipeline.exec()) ?? []).map(([, count]) => Number(count));
    const live: LiveWorkers = { idle: [], running: [] };
    ids.forEach((id, index) => {
      if (replies[2 * index + 1] === 1) return;
      ((replies[2 * index] ?? 0) > 0 ? live.running : live.idle).push(id);
    });
    return live;
  }
}
