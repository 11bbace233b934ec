import { NotFoundError, ValidationError } from '@runplane/contracts';
import {
  createQueue,
  jobEventsCatalog,
  type Redis,
  type TypedQueue,
  WEBHOOKS_QUEUE,
  warnOfError,
} from '@runplane/queue';
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
  TakeRequest,
} from './engine';
import { eventEntry, JOB_EVENTS_MAX_LEN } from './events';
import { claimIdempotencyKey, idempotencyKey } from './idempotency';
import { JobReader, toJobRecord } from './job-store';
import { engineConnections, jobDone, isFinishedRecord, isTerminal, type RedisJobEngineOptions } from './engine-options';
import { JobKeys, PARKING } from './protocol';
import { checkPolicy, checkTtl, IDEMPOTENCY_WINDOW_MS, isSyncJobId, newJobId } from './policy';
import { JobDispatcher } from './dispatch';
import { purgeQueued } from './purge-queue';
import { recordAndDispatch } from './submission';
import { SCRIPTS } from './engine-scripts';
import { splitStreamOutput } from './stream-chunks';
import { Sweeper } from './sweeper';
import { TakeBeats } from './take-beats';
import { Wakeups } from './wakeups';
import { WebhookOutbox } from './webhook-outbox';

/** How long an endpoint's `watched` mark outlives the wait that set it. */
const WATCH_GRACE_MS = 60_000;

/** The job engine on Redis: job records in Lua-guarded hashes, dispatch order in one sorted set per endpoint. */
export class RedisJobEngine implements JobEngine {
  readonly clock: Clock;
  /** Ordered with BullMQ's scripts: see `EngineConnections` (connections.ts). */
  private readonly queueOrdered: Redis;
  /** Free of BullMQ's commands: see `EngineConnections` (connections.ts). */
  private readonly queueFree: Redis;
  private readonly keys: JobKeys;
  private readonly reader: JobReader;
  private readonly wakeups: Wakeups;
  private readonly webhooks: TypedQueue<typeof jobEventsCatalog, typeof WEBHOOKS_QUEUE>;
  private readonly outbox: WebhookOutbox;
  private readonly sweeper: Sweeper;
  private readonly onError: (error: Error) => void;
  private readonly dispatcher: JobDispatcher;
  private readonly takeBeats: TakeBeats;
  /** Told of each job this engine records; see {@link onSubmitted}. */
  private readonly submittedListeners: Array<(endpointId: string) => void> = [];

  constructor(private readonly options: RedisJobEngineOptions) {
    ({ queueOrdered: this.queueOrdered, queueFree: this.queueFree } = engineConnections(options));
    this.clock = options.clock ?? { now: () => Date.now() };
    this.onError = options.onError ?? warnOfError;
    this.keys = JobKeys.ofPrefix(options.prefix);
    this.reader = new JobReader(this.queueFree, this.keys);
    const connection = { redis: this.queueOrdered, prefix: options.prefix };
    this.webhooks = createQueue(jobEventsCatalog, WEBHOOKS_QUEUE, connection);
    const batch = options.sweepBatch ?? 1_000;
    this.outbox = new WebhookOutbox(this.queueOrdered, this.keys, this.webhooks, {
      graceMs: options.outboxGraceMs,
      batch,
    });
    this.wakeups = new Wakeups(this.queueOrdered, this.keys.wakeChannel);
    const { queueFree, keys, wakeups, clock, onError } = this;
    this.dispatcher = new JobDispatcher({ queueFree, keys, wakeups, clock, onError });
    const heartbeatIntervalMs = options.heartbeatIntervalMs ?? 10_000;
    this.takeBeats = new TakeBeats(heartbeatIntervalMs);
    this.sweeper = new Sweeper(this.queueOrdered, this.keys, {
      heartbeatIntervalMs,
      maxRetries: options.maxRetries ?? 3,
      batch,
      requeued: (endpointId, id) => this.dispatcher.enqueue(endpointId, id),
      finished: (endpointId, id) => this.afterFinish(endpointId, id),
      relayWebhooks: (now) => this.outbox.relayDue(now),
    });
  }

  async submit(job: JobSubmission): Promise<JobRecord> {
    checkPolicy(job.policy);
    if (job.admission && job.idempotencyKey !== undefined) {
      // A repeat would answer its first job without counting the admission, slots given back included.
      throw new Error('A submission with an Idempotency-Key is counted by its caller, not with an admission');
    }
    const now = this.clock.now();
    const id = newJobId(this.options.region, job.sync);
    if (job.idempotencyKey !== undefined) {
      const key = idempotencyKey(this.keys, job.endpointId, job.idempotencyKey);
      const firstId = await claimIdempotencyKey(this.queueFree, key, id, now);
      const first = firstId === id ? undefined : await this.get(job.endpointId, firstId).catch(() => undefined);
      if (first) return { id: first.id, status: first.status, retries: first.retries };
      // The first job is gone (ttl, retention): this one takes the key over.
      if (firstId !== id) await this.queueFree.set(key, `${now} ${id}`, 'PX', IDEMPOTENCY_WINDOW_MS);
    }
    return this.create(job, id, now);
  }

  async get(endpointId: string, jobId: string): Promise<JobRecord> {
    return toJobRecord(jobId, await this.reader.hash(endpointId, jobId), this.clock.now());
  }

  async waitFor(endpointId: string, jobId: string, waitMs: number, signal?: AbortSignal): Promise<JobRecord> {
    this.watch(endpointId, jobId, waitMs);
    const done = await this.wakeups.park({
      channel: PARKING.job(endpointId, jobId),
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
    const outcome = await SCRIPTS.setTtl.run(this.queueFree, { base: this.keys.base, endpointId, jobId, ttlMs });
    if (outcome === 'missing') throw new NotFoundError(`Job ${jobId}`);
    return this.get(endpointId, jobId);
  }

  async cancel(endpointId: string, jobId: string): Promise<JobRecord> {
    const now = this.clock.now();
    const was = await SCRIPTS.cancel.run(this.queueFree, { base: this.keys.base, endpointId, jobId, now });
    if (was === 'missing') throw new NotFoundError(`Job ${jobId}`);
    if (!isTerminal(was)) await this.afterFinish(endpointId, jobId);
    return this.get(endpointId, jobId);
  }

  async retry(endpointId: string, jobId: string): Promise<JobRecord> {
    const now = this.clock.now();
    const outcome = await SCRIPTS.retry.run(this.queueFree, { base: this.keys.base, endpointId, jobId, now });
    if (outcome === 'missing') throw new NotFoundError(`Job ${jobId}`);
    if (outcome !== 'queued') {
      throw new ValidationError(`id: job ${jobId} is ${outcome}; only FAILED or TIMED_OUT jobs can be retried`);
    }
    await this.dispatcher.enqueue(endpointId, jobId);
    return this.get(endpointId, jobId);
  }

  async purgeQueue(endpointId: string): Promise<number> {
    const { queueFree, keys } = this;
    const afterFinish = (ep: string, id: string) => this.afterFinish(ep, id);
    return purgeQueued({ queueFree, keys, afterFinish }, endpointId, this.clock.now());
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
      const reply = await SCRIPTS.drain.run(this.queueFree, { base: this.keys.base, endpointId, jobId });
      if (!reply) throw new NotFoundError(`Job ${jobId}`);
      const [status, chunks] = reply;
      return { status: status as StreamRead['status'], stream: chunks.map((chunk) => ({ output: JSON.parse(chunk) })) };
    };
    this.watch(endpointId, jobId, waitMs);
    const read = await this.wakeups.park({
      channel: PARKING.job(endpointId, jobId),
      waitMs,
      signal,
      attempt: async () => {
        const result = await drain();
        return result.stream.length > 0 || isTerminal(result.status) ? result : undefined;
      },
    });
    return read ?? drain();
  }

  /**
   * Has the changes of the endpoint's jobs published while a caller waits `waitMs` for one that has not finished
   * (`<ep>:watched`, see ENDPOINT_KEYS and the WATCH script), unless it is a /runsync job, whose changes always are.
   * Sent before the caller's first look on the same connection, so a change after that look is published.
   */
  private watch(endpointId: string, jobId: string, waitMs: number): void {
    if (waitMs <= 0 || isSyncJobId(jobId)) return;
    const args = { base: this.keys.base, endpointId, jobId, ttlMs: waitMs + WATCH_GRACE_MS };
    SCRIPTS.watch.run(this.queueFree, args).catch(this.onError);
  }

  take(request: TakeRequest): Promise<TakenJob[]> {
    // The heartbeat goes out with the first attempt (one round trip), not before it. No async frame of its own: a
    // parked take holds as little memory as it can.
    const { endpointId, workerId } = request;
    if (!this.takeBeats.due(endpointId, workerId, this.clock.now())) return this.dispatcher.take(request);
    const beat = this.heartbeat(endpointId, workerId);
    return Promise.all([beat, this.dispatcher.take(request)]).then(([, jobs]) => jobs);
  }

  async complete(endpointId: string, workerId: string, jobId: string, result: JobResult): Promise<void> {
    const progress = result.status === 'IN_PROGRESS';
    const channel = PARKING.job(endpointId, jobId);
    const now = this.clock.now();
    const args = { base: this.keys.base, endpointId, jobId, workerId, now, ...jobDone(result) };
    const completing = SCRIPTS.complete.run(this.queueFree, args);
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
      this.wakeups.notify(channel, hash ? toJobRecord(jobId, hash, this.clock.now()) : undefined);
    }
    if (outcome === 'webhook') await this.afterFinish(endpointId, jobId);
  }

  async appendStream(endpointId: string, workerId: string, jobId: string, output: unknown): Promise<void> {
    const chunks = splitStreamOutput(output);
    const args = { base: this.keys.base, endpointId, jobId, workerId, chunks };
    const outcome = await SCRIPTS.append.run(this.queueFree, args);
    if (outcome === 'missing') throw new NotFoundError(`Job ${jobId}`);
  }

  async traceparent(endpointId: string, jobId: string): Promise<string | undefined> {
    return (await this.queueFree.hget(this.keys.job(endpointId, jobId), 'traceparent')) ?? undefined;
  }

  /** Records that the worker is alive; with the jobs it reports holding, takes back those it never received. */
  async heartbeat(endpointId: string, workerId: string, jobIds?: string[]): Promise<void> {
    const now = this.clock.now();
    await SCRIPTS.heartbeat.run(this.queueFree, { base: this.keys.base, endpointId, workerId, now });
    if (jobIds) await this.sweeper.reconcile(endpointId, workerId, jobIds, now);
  }

  async unhealthy(endpointId: string, workerId: string, reason: string): Promise<void> {
    this.takeBeats.forget(endpointId, workerId);
    const event = eventEntry('worker.unhealthy', endpointId, { workerId, reason });
    await this.queueFree
      .multi()
      .zrem(this.keys.endpoint(endpointId, 'workers'), workerId)
      .xadd(this.keys.events, 'MAXLEN', '~', JOB_EVENTS_MAX_LEN, '*', ...event)
      .exec();
  }

  async stopRequests(endpointId: string, workerId: string, waitMs: number, signal?: AbortSignal): Promise<string[]> {
    const ids = await this.wakeups.park({
      channel: PARKING.stops(endpointId, workerId),
      waitMs,
      signal,
      attempt: async () => {
        const drained = await SCRIPTS.stops.run(this.queueFree, { base: this.keys.base, endpointId, workerId });
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
    await this.dispatcher.close();
    await this.webhooks.close();
  }

  /**
   * Calls `listener` with the endpoint of each job this engine records from then on: a new job, not the repeat of an
   * Idempotency-Key, nor a /retry (e.g. the job-router's count of submitted jobs: each is recorded by one replica).
   */
  onSubmitted(listener: (endpointId: string) => void): void {
    this.submittedListeners.push(listener);
  }

  private async create(job: JobSubmission, id: string, now: number): Promise<JobRecord> {
    const { queueFree, keys, dispatcher } = this;
    await recordAndDispatch({ queueFree, keys, dispatcher }, { job, id, now });
    for (const listener of this.submittedListeners) listener(job.endpointId);
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
