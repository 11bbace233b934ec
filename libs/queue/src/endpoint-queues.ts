import { Queue, Worker, type Job } from 'bullmq';
import { warnOfError } from './warnings';
import { assertQueueConnection, bullPrefix, type QueueConnection } from './queues';

/** Tuning for {@link EndpointQueues}. */
export interface EndpointQueuesOptions {
  /**
   * How long a fetched entry stays locked before BullMQ's stalled check returns it to the queue (default 5 s). A
   * taker holds an entry for one round trip (fetch, then claim and release), so the lock only matters when a taker
   * died holding it: it bounds how long that entry's job waits after a crash, with {@link stalledCheckMs}.
   */
  lockMs?: number;
  /** How often the stalled check runs per queue (default 5 s). */
  stalledCheckMs?: number;
  /** Called when the stalled check put entries back (e.g. after a crash between fetch and claim), so takers wake. */
  onReturned?: (endpointId: string) => void;
  onError?: (error: Error) => void;
}

/** An entry fetched from an endpoint queue: locked to this taker until released. */
export interface FetchedEntry {
  id: string;
  /** Removes the entry from BullMQ for good (the caller now owns the job's state). */
  release(): Promise<void>;
}

interface EndpointQueue {
  queue: Queue;
  worker: Worker;
}

// Entries carry no payload: the job record lives in the job engine's own keys, so BullMQ only orders and hands out ids.
// An entry's options hold only its id (`attempts` left out: entries never fail), so its hash stays small enough for
// Redis's compact encoding (values up to hash-max-listpack-value, 64 bytes); the manual worker removes released entries.
const ENTRY_NAME = 'job.dispatch';
const ENTRY_OPTIONS = { attempts: undefined } as const;
const REMOVE_RELEASED = { removeOnComplete: { count: 0 }, removeOnFail: { count: 0 } };
// Nothing reads a queue's BullMQ event stream: it is kept near this length instead of BullMQ's 10,000 per queue.
const EVENTS_MAX_LEN = 100;
const DEFAULT_LOCK_MS = 5_000;
const DEFAULT_STALLED_CHECK_MS = 5_000;
// Stalled entries always go back to the queue: the job engine, not BullMQ, decides when a job has failed.
const NEVER_FAIL_STALLED = 1_000_000;

/**
 * One BullMQ queue per serverless endpoint, processed manually (`getNextJob` + token): producers add job ids,
 * takers fetch them one at a time. Queues and their manual workers are created on first use.
 */
export class EndpointQueues {
  private readonly queues = new Map<string, EndpointQueue>();
  private closed = false;

  constructor(
    private readonly connection: QueueConnection,
    private readonly options: EndpointQueuesOptions = {},
  ) {
    assertQueueConnection(connection);
  }

  /** BullMQ queue name of an endpoint. */
  static queueName(endpointId: string): string {
    return `endpoint-${endpointId}`;
  }

  /** Appends a job id to the endpoint's queue; adding an id that is already queued is a no-op. */
  async add(endpointId: string, jobId: string): Promise<void> {
    await this.get(endpointId).queue.add(ENTRY_NAME, {}, { ...ENTRY_OPTIONS, jobId });
  }

  /** Puts a job id back at the head of the endpoint's queue (a fetched entry its taker could not use). */
  async putBack(endpointId: string, jobId: string): Promise<void> {
    await this.get(endpointId).queue.add(ENTRY_NAME, {}, { ...ENTRY_OPTIONS, jobId, lifo: true });
  }

  /** Fetches the oldest entry without blocking, or undefined when the queue is empty. */
  async fetch(endpointId: string, token: string): Promise<FetchedEntry | undefined> {
    const job: Job | undefined = await this.get(endpointId).worker.getNextJob(token, { block: false });
    if (!job?.id) return undefined;
    return { id: job.id, release: () => job.moveToCompleted(null, token, false).then(() => undefined) };
  }

  /** Removes a queued entry (an absent id counts as removed); false when a taker holds it. */
  async remove(endpointId: string, jobId: string): Promise<boolean> {
    return (await this.get(endpointId).queue.remove(jobId)) === 1;
  }

  /** Entries waiting in the endpoint's queue (not fetched). */
  async waitingCount(endpointId: string): Promise<number> {
    return this.get(endpointId).queue.getJobCountByTypes('waiting', 'prioritized');
  }

  /** Which of `jobIds` have an entry (waiting or fetched) in the endpoint's queue. */
  async present(endpointId: string, jobIds: string[]): Promise<Set<string>> {
    const { queue } = this.get(endpointId);
    const states = await Promise.all(jobIds.map((id) => queue.getJobState(id)));
    return new Set(jobIds.filter((_, index) => states[index] !== 'unknown'));
  }

  /** Closes every queue and manual worker (the shared Redis client stays open). */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.queues.values()];
    this.queues.clear();
    await Promise.all(all.map(async ({ queue, worker }) => Promise.all([worker.close(true), queue.close()])));
  }

  private get(endpointId: string): EndpointQueue {
    const existing = this.queues.get(endpointId);
    if (existing) return existing;
    if (this.closed) throw new Error('EndpointQueues is closed');
    const name = EndpointQueues.queueName(endpointId);
    const common = { connection: this.connection.redis, prefix: bullPrefix(this.connection.prefix) };
    const queue = new Queue(name, { ...common, streams: { events: { maxLen: EVENTS_MAX_LEN } } });
    const worker = new Worker(name, null, {
      ...common,
      ...REMOVE_RELEASED,
      lockDuration: this.options.lockMs ?? DEFAULT_LOCK_MS,
      stalledInterval: this.options.stalledCheckMs ?? DEFAULT_STALLED_CHECK_MS,
      maxStalledCount: NEVER_FAIL_STALLED,
    });
    const onError = this.options.onError ?? warnOfError;
    worker.on('error', onError);
    queue.on('error', onError);
    worker.on('stalled', () => this.options.onReturned?.(endpointId));
    void worker.startStalledCheckTimer().catch(onError);
    const entry = { queue, worker };
    this.queues.set(endpointId, entry);
    return entry;
  }
}
