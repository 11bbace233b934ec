import { NotFoundError, ValidationError } from '@runplane/contracts';
import { createQueue, EndpointQueues, type EndpointQueuesOptions, type Redis, type TypedQueue } from '@runplane/queue';
import type {
  Clock,
  JobCounts,
  JobEngine,
  JobRecord,
  JobResult,
  JobSubmission,
  LiveWorkers,
  StreamRead,
  TakenJob,
} from './engine';
import { TERMINAL_STATUSES } from './engine';
import { JOB_EVENTS_MAX_LEN } from './events';
import { jobEventsCatalog, WEBHOOKS_QUEUE } from './job-catalog';
import { claimIdempotencyKey, idempotencyKey } from './idempotency';
import { JobKeys, JobReader, toJobRecord } from './job-store';
import { checkPolicy, checkTtl, IDEMPOTENCY_WINDOW_MS, newJobId, RESULT_RETENTION } from './policy';
import { HAND_OFF_MAX_CHARS, JobDispatcher } from './dispatch';
import { SCRIPTS } from './engine-scripts';
import { splitStreamOutput } from './stream-chunks';
import { Sweeper } from './sweeper';
import { Wakeups } from './wakeups';
import { WebhookOutbox } from './webhook-outbox';

/** Wiring and tuning of {@link RedisJobEngine}. */
export interface RedisJobEngineOptions {
  /** A client WITHOUT keyPrefix (BullMQ shares it); keys go under `prefix`. */
  redis: Redis;
  /**
   * A second client (WITHOUT keyPrefix) for the engine's commands that need no order with BullMQ's on one connection:
   * reads, heartbeats, results, stream chunks, stop requests, wakes. Keep BullMQ off it: ioredis copies every Lua
   * command defined on a client (BullMQ defines dozens) into each pipeline it builds. Defaults to `redis`.
   */
  commands?: Redis;
  prefix: string;
  /** Suffix of job ids (`<uuid>-<region>`), e.g. "u1". */
  region: string;
  clock?: Clock;
  /** Expected worker ping interval; a worker silent for 3 intervals is lost (default 10000). */
  heartbeatIntervalMs?: number;
  /** Times a job is re-queued after losing its worker before it FAILs (default 3). */
  maxRetries?: number;
  queues?: Pick<EndpointQueuesOptions, 'lockMs' | 'stalledCheckMs'>;
  /** Most jobs or workers one sweep rule handles per call (default 1000). */
  sweepBatch?: number;
  /** Webhook outbox entries younger than this are left to the request that made them (default 5000). */
  outboxGraceMs?: number;
  /** Errors of side effects that must not fail the caller (webhook enqueue, queue clean-up). */
  onError?: (error: Error) => void;
}

/** Workers whose take heartbeats are remembered; past this the memory starts over (each writes one beat more). */
const TAKE_BEATS_KEPT = 10_000;

function isTerminal(status: string): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

function isFinishedRecord(value: unknown): value is JobRecord {
  return typeof value === 'object' && value !== null && isTerminal(String((value as { status?: unknown }).status));
}

function errorText(error: unknown): string {
  return typeof error === 'string' ? error : JSON.stringify(error);
}

/** The job engine on Redis: job records in Lua-guarded hashes, dispatch order in one BullMQ queue per endpoint. */
export class RedisJobEngine implements JobEngine {
  readonly clock: Clock;
  private readonly redis: Redis;
  /** See {@link RedisJobEngineOptions.commands}. */
  private readonly commands: Redis;
  private readonly keys: JobKeys;
  private readonly reader: JobReader;
  private readonly queues: EndpointQueues;
  private readonly wakeups: Wakeups;
  private readonly webhooks: TypedQueue<typeof jobEventsCatalog, typeof WEBHOOKS_QUEUE>;
  private readonly outbox: WebhookOutbox;
  private readonly sweeper: Sweeper;
  private readonly onError: (error: Error) => void;
  private readonly dispatcher: JobDispatcher;
  /** When each worker's last heartbeat was written by a take on this replica (engine clock). */
  private readonly takeBeats = new Map<string, number>();

  constructor(private readonly options: RedisJobEngineOptions) {
    this.redis = options.redis;
    this.commands = options.commands ?? options.redis;
    this.clock = options.clock ?? { now: () => Date.now() };
    this.onError = options.onError ?? ((error) => process.emitWarning(error));
    this.keys = JobKeys.ofPrefix(options.prefix);
    this.reader = new JobReader(this.commands, this.keys);
    const connection = { redis: this.redis, prefix: options.prefix };
    this.queues = new EndpointQueues(connection, {
      ...options.queues,
      onError: this.onError,
      onReturned: (endpointId) => this.dispatcher.wakeInBackground(endpointId),
    });
    this.webhooks = createQueue(jobEventsCatalog, WEBHOOKS_QUEUE, connection);
    const batch = options.sweepBatch ?? 1_000;
    this.outbox = new WebhookOutbox(this.redis, this.keys, this.webhooks, { graceMs: options.outboxGraceMs, batch });
    this.wakeups = new Wakeups(this.redis, this.keys.wakeChannel);
    const { redis, commands, keys, queues, wakeups, clock, onError } = this;
    this.dispatcher = new JobDispatcher({ redis, commands, keys, queues, wakeups, clock, onError });
    this.sweeper = new Sweeper(this.redis, this.keys, this.queues, {
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 10_000,
      maxRetries: options.maxRetries ?? 3,
      batch,
      requeued: (endpointId, id) => this.dispatcher.enqueue(endpointId, id),
      finished: (endpointId, id) => this.afterFinish(endpointId, id),
      relayWebhooks: (now) => this.outbox.relayDue(now),
    });
  }

  async submit(job: JobSubmission): Promise<JobRecord> {
    checkPolicy(job.policy);
    const now = this.clock.now();
    const id = newJobId(this.options.region, job.sync);
    if (job.idempotencyKey !== undefined) {
      const key = idempotencyKey(this.keys, job.endpointId, job.idempotencyKey);
      const firstId = await claimIdempotencyKey(this.commands, key, id, now);
      const first = firstId === id ? undefined : await this.get(job.endpointId, firstId).catch(() => undefined);
      if (first) return { id: first.id, status: first.status, retries: first.retries };
      // The first job is gone (ttl, retention): this one takes the key over.
      if (firstId !== id) await this.commands.set(key, `${now} ${id}`, 'PX', IDEMPOTENCY_WINDOW_MS);
    }
    return this.create(job, id, now);
  }

  async get(endpointId: string, jobId: string): Promise<JobRecord> {
    return toJobRecord(await this.reader.hash(endpointId, jobId), this.clock.now());
  }

  async waitFor(endpointId: string, jobId: string, waitMs: number, signal?: AbortSignal): Promise<JobRecord> {
    const done = await this.wakeups.park({
      channel: `j|${endpointId}|${jobId}`,
      waitMs,
      signal,
      attempt: async () => {
        const record = await this.get(endpointId, jobId);
        return isTerminal(record.status) ? record : undefined;
      },
      // A job-done on this replica hands over the finished record it read (see complete).
      accept: (news) => (isFinishedRecord(news) ? news : undefined),
    });
    return done ?? this.get(endpointId, jobId);
  }

  async setTtl(endpointId: string, jobId: string, ttlMs: number): Promise<JobRecord> {
    checkTtl(ttlMs);
    const outcome = await SCRIPTS.setTtl.run<string>(this.commands, [this.keys.base, endpointId, jobId, ttlMs]);
    if (outcome === 'missing') throw new NotFoundError(`Job ${jobId}`);
    return this.get(endpointId, jobId);
  }

  async cancel(endpointId: string, jobId: string): Promise<JobRecord> {
    const now = this.clock.now();
    const was = await SCRIPTS.cancel.run<string>(this.commands, [this.keys.base, endpointId, jobId, now]);
    if (was === 'missing') throw new NotFoundError(`Job ${jobId}`);
    if (was === 'IN_QUEUE') await this.dispatcher.dropEntry(endpointId, jobId);
    if (!isTerminal(was)) await this.afterFinish(endpointId, jobId);
    return this.get(endpointId, jobId);
  }

  async retry(endpointId: string, jobId: string): Promise<JobRecord> {
    const outcome = await SCRIPTS.retry.run<string>(this.commands, [
      this.keys.base,
      endpointId,
      jobId,
      this.clock.now(),
    ]);
    if (outcome === 'missing') throw new NotFoundError(`Job ${jobId}`);
    if (outcome !== 'queued') {
      throw new ValidationError(`id: job ${jobId} is ${outcome}; only FAILED or TIMED_OUT jobs can be retried`);
    }
    await this.dispatcher.enqueue(endpointId, jobId);
    return this.get(endpointId, jobId);
  }

  async purgeQueue(endpointId: string): Promise<number> {
    const ids = await SCRIPTS.purge.run<string[]>(this.commands, [this.keys.base, endpointId, this.clock.now()]);
    await Promise.all(ids.map((id) => this.dispatcher.dropEntry(endpointId, id)));
    await Promise.all(ids.map((id) => this.afterFinish(endpointId, id)));
    return ids.length;
  }

  counts(endpointId: string): Promise<JobCounts> {
    return this.reader.counts(endpointId);
  }

  recent(endpointId: string, limit: number): Promise<JobRecord[]> {
    return this.reader.recent(endpointId, limit, this.clock.now());
  }

  /** Workers of the endpoint heard from within 3 heartbeat intervals, split into idle and running. */
  workers(endpointId: string): Promise<LiveWorkers> {
    return this.reader.workers(endpointId, this.clock.now() - 3 * this.sweeper.heartbeatIntervalMs);
  }

  /** Queued jobs that count for scale-up (lowPriority jobs never do). */
  scalingQueue(endpointId: string): Promise<number> {
    return this.reader.scalingQueue(endpointId);
  }

  async readStream(endpointId: string, jobId: string, waitMs: number, signal?: AbortSignal): Promise<StreamRead> {
    const drain = async (): Promise<StreamRead> => {
      const reply = await SCRIPTS.drain.run<[string, string[]] | null>(this.commands, [
        this.keys.base,
        endpointId,
        jobId,
      ]);
      if (!reply) throw new NotFoundError(`Job ${jobId}`);
      const [status, chunks] = reply;
      return { status: status as StreamRead['status'], stream: chunks.map((chunk) => ({ output: JSON.parse(chunk) })) };
    };
    const read = await this.wakeups.park({
      channel: `j|${endpointId}|${jobId}`,
      waitMs,
      signal,
      attempt: async () => {
        const result = await drain();
        return result.stream.length > 0 || isTerminal(result.status) ? result : undefined;
      },
    });
    return read ?? drain();
  }

  async take(
    endpointId: string,
    workerId: string,
    count: number,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<TakenJob[]> {
    // The heartbeat goes out with the first attempt (one round trip), not before it.
    const [, jobs] = await Promise.all([
      this.heartbeatIfDue(endpointId, workerId),
      this.dispatcher.take(endpointId, workerId, count, waitMs, signal),
    ]);
    return jobs;
  }

  /**
   * A take counts as a heartbeat, but a worker taking jobs back to back need not write one per job: a beat younger
   * than a tenth of the interval is left as it is (lost-worker detection waits 3 intervals). Pings always write.
   */
  private heartbeatIfDue(endpointId: string, workerId: string): Promise<void> {
    const now = this.clock.now();
    const key = `${endpointId}|${workerId}`;
    const last = this.takeBeats.get(key);
    const refreshMs = this.sweeper.heartbeatIntervalMs / 10;
    if (last !== undefined && now >= last && now - last < refreshMs) return Promise.resolve();
    if (this.takeBeats.size >= TAKE_BEATS_KEPT) this.takeBeats.clear();
    this.takeBeats.set(key, now);
    return this.heartbeat(endpointId, workerId);
  }

  async complete(endpointId: string, workerId: string, jobId: string, result: JobResult): Promise<void> {
    const progress = result.status === 'IN_PROGRESS';
    const hasError = !progress && result.error !== undefined && result.error !== null;
    const hasOutput = result.output !== undefined;
    const channel = `j|${endpointId}|${jobId}`;
    const completing = SCRIPTS.complete.run<string>(this.commands, [
      this.keys.base, endpointId, jobId, workerId, this.clock.now(),
      progress ? 'progress' : 'final', hasError ? 'FAILED' : 'COMPLETED',
      hasOutput ? '1' : '0', hasOutput ? JSON.stringify(result.output) : '',
      hasError ? '1' : '0', hasError ? errorText(result.error) : '',
      result.stopPod === true ? '1' : '0',
    ]); // prettier-ignore
    // A caller parked here for this job (a /runsync) gets the finished record read in the same round trip (sent right
    // after the script on one connection), instead of reading it after the wake.
    const reading =
      !progress && this.wakeups.waiting(channel)
        ? this.reader.hash(endpointId, jobId).catch(() => undefined)
        : undefined;
    const outcome = await completing;
    if (outcome === 'missing') throw new NotFoundError(`Job ${jobId}`);
    if (outcome === 'done' || outcome === 'webhook') {
      // The script published the change for the other replicas; callers parked here need not wait for it.
      const hash = reading ? await reading : undefined;
      this.wakeups.notify(channel, hash ? toJobRecord(hash, this.clock.now()) : undefined);
    }
    if (outcome === 'webhook') await this.afterFinish(endpointId, jobId);
  }

  async appendStream(endpointId: string, workerId: string, jobId: string, output: unknown): Promise<void> {
    const chunks = splitStreamOutput(output);
    const args = [this.keys.base, endpointId, jobId, workerId, ...chunks];
    const outcome = await SCRIPTS.append.run<string>(this.commands, args);
    if (outcome === 'missing') throw new NotFoundError(`Job ${jobId}`);
  }

  /** Records that the worker is alive; with the jobs it reports holding, takes back those it never received. */
  async heartbeat(endpointId: string, workerId: string, jobIds?: string[]): Promise<void> {
    const now = this.clock.now();
    await SCRIPTS.heartbeat.run(this.commands, [this.keys.base, endpointId, workerId, now]);
    if (jobIds) await this.sweeper.reconcile(endpointId, workerId, jobIds, now);
  }

  async unhealthy(endpointId: string, workerId: string, reason: string): Promise<void> {
    // Its next take writes a heartbeat again, whenever the last one was.
    this.takeBeats.delete(`${endpointId}|${workerId}`);
    const event = ['type', 'worker.unhealthy', 'endpointId', endpointId, 'workerId', workerId, 'reason', reason];
    await this.commands
      .multi()
      .zrem(this.keys.endpoint(endpointId, 'workers'), workerId)
      .xadd(this.keys.events, 'MAXLEN', '~', JOB_EVENTS_MAX_LEN, '*', ...event)
      .exec();
  }

  async stopRequests(endpointId: string, workerId: string, waitMs: number, signal?: AbortSignal): Promise<string[]> {
    const ids = await this.wakeups.park({
      channel: `s|${endpointId}|${workerId}`,
      waitMs,
      signal,
      attempt: async () => {
        const drained = await SCRIPTS.stops.run<string[]>(this.commands, [this.keys.base, endpointId, workerId]);
        return drained.length > 0 ? drained : undefined;
      },
    });
    return ids ?? [];
  }

  sweep(): Promise<void> {
    return this.sweeper.sweep(this.clock.now());
  }

  /** Callers parked in take, status-sync, stream and job-stop on this replica. */
  parked(): number {
    return this.wakeups.parked();
  }

  async close(): Promise<void> {
    await this.dispatcher.settled();
    await Promise.all([this.wakeups.close(), this.queues.close(), this.webhooks.close()]);
  }

  private async create(job: JobSubmission, id: string, now: number): Promise<JobRecord> {
    const retentionMs = job.retentionMs ?? (job.sync ? RESULT_RETENTION.syncMs : RESULT_RETENTION.runMs);
    const low = job.policy.lowPriority ? '1' : '0';
    const input = JSON.stringify(job.input);
    const extra = JSON.stringify(job.extra);
    const fields: (string | number)[] = [
      'id', id, 'status', 'IN_QUEUE', 'accountId', job.accountId, 'retries', 0, 'input', input, 'extra', extra,
      'executionTimeoutMs', job.policy.executionTimeoutMs, 'lowPriority', low, 'sync', job.sync ? '1' : '0',
      'retentionMs', retentionMs, 'submittedAt', now, 'queuedAt', now, 'ttlAt', now + job.policy.ttlMs,
      ...(job.webhook !== undefined ? ['webhook', job.webhook] : []),
    ]; // prettier-ignore
    const taker = this.dispatcher.reserve(job.endpointId);
    // With no take parked here, the record's script hands the job to a take another replica registered, or else
    // announces it to the other replicas' takers, which claim it by id: they never wait for the queue entry, and the
    // local add wakes this replica's own.
    const announce = taker ? '' : this.dispatcher.announcement(job.endpointId, id);
    const handOff = !taker && input.length + extra.length <= HAND_OFF_MAX_CHARS ? '1' : '0';
    const args = [this.keys.base, job.endpointId, id, now, now + job.policy.ttlMs, low, announce, handOff, ...fields];
    // One round trip for the record and its dispatch: the record's script is sent first on the connection the next
    // step uses (a taker's claim, or BullMQ's add), so Redis runs it first and a taker never finds an entry without
    // its record (repairQueues covers a NOSCRIPT retry).
    const recording = SCRIPTS.submit.run<number>(taker ? this.commands : this.redis, args);
    await Promise.all([recording, this.dispatcher.dispatch(job.endpointId, id, taker, taker ? undefined : recording)]);
    return { id, status: 'IN_QUEUE', retries: 0 };
  }

  /**
   * Side effects of a terminal job: its webhook, relayed from the outbox at once. Failures are reported, never thrown
   * at the worker or client: the entry stays in the outbox and a later sweep relays it.
   */
  private async afterFinish(endpointId: string, jobId: string): Promise<void> {
    await this.outbox.relay(endpointId, jobId).catch(this.onError);
  }
}
