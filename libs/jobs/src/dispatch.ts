import { randomUUID } from 'node:crypto';
import { randomUuid } from '@runplane/db';
import { turnEnd } from '@runplane/event-loop';
import type { EndpointQueues, Redis } from '@runplane/queue';
import type { EngineConnections } from './connections';
import { type Clock, JOB_TRACEPARENT, type TakenJob, type TakeRequest } from './engine';
import { type ClaimedJob, SCRIPTS } from './engine-scripts';
import { encodeTakerEntry, type HandOffWake, type JobKeys, PARKING } from './protocol';
import type { Reservation, Wakeups } from './wakeups';

/** What a {@link JobDispatcher} works with: the job engine's clients, keys, queues and wake-ups. */
export interface JobDispatcherParts extends EngineConnections {
  keys: JobKeys;
  queues: EndpointQueues;
  wakeups: Wakeups;
  clock: Clock;
  onError: (error: Error) => void;
}

/** What a claim says when the worker was retired by the scheduler (see the RETIRE script): its take ends empty. */
const RETIRED = 'retired';

/** The outcome of a claim: the take's answer for the job, undefined when the job was not IN_QUEUE, or RETIRED. */
type Claim = TakenJob | undefined | typeof RETIRED;

/** What the SUBMIT script answers when it handed the job to a take registered by another replica. */
export const HANDED_OFF = 2;

/** Largest input + extra (JSON characters) a job may have to be handed off: it travels in the hand-off message. */
export const HAND_OFF_MAX_CHARS = 64 * 1024;

/** How long a registered take's entry outlives its wait in Redis (a replica that died leaves its entries behind). */
const TAKERS_KEY_GRACE_MS = 60_000;

/** The take answer of a claimed job: RunPod's `{id, input, ...extra keys}` from the CLAIM script's reply. */
function takenJob(id: string, [input, extra, traceparent]: ClaimedJob): TakenJob {
  const { id: _id, input: _input, ...rest } = JSON.parse(extra) as Record<string, unknown>;
  const job: TakenJob = { id, input: JSON.parse(input) as Record<string, unknown>, ...rest };
  if (traceparent) job[JOB_TRACEPARENT] = traceparent;
  return job;
}

/**
 * How queued jobs reach takes. A job waits in its endpoint's BullMQ queue, in submission order, while no take is
 * parked; a take fetches the oldest entry and claims its job. A job queued while a take is parked goes to it
 * directly: the replica that queued it claims it for a take parked on itself ({@link dispatch} with a reserved take);
 * else the job's record script claims it for the oldest take registered in Redis by another replica and publishes it
 * to that replica ({@link handedOff}); else the script names the job in the wake it publishes, and a take woken on
 * another replica claims it by id.
 */
export class JobDispatcher {
  /** Side effects under way that callers did not wait for (wakes, entry removals); see {@link settled}. */
  private readonly background = new Set<Promise<void>>();
  /** Takes under way on this replica; see {@link close}. */
  private readonly takes = new Set<Promise<TakenJob[]>>();

  constructor(private readonly parts: JobDispatcherParts) {
    parts.wakeups.onHandOff((handOff) => this.handedOff(handOff));
  }

  /** Sets aside a take parked on this replica for a job about to be recorded (undefined when none is parked). */
  reserve(endpointId: string): Reservation | undefined {
    return this.parts.wakeups.reserve(PARKING.takers(endpointId));
  }

  /** The wake a job's record script publishes when no take was reserved for it: the other replicas' takes claim it. */
  announcement(endpointId: string, jobId: string): string {
    return this.parts.wakeups.queuedMessage(endpointId, jobId);
  }

  /** Dispatches a job that is IN_QUEUE in its record (a retry, a re-queue): see {@link dispatch}. */
  enqueue(endpointId: string, jobId: string): Promise<void> {
    return this.dispatch(endpointId, jobId, this.reserve(endpointId));
  }

  /**
   * Dispatches a queued job: to the `taker` reserved for it if there is one (see handOver), else adds its queue entry
   * and wakes takers: this replica's at once, the others' by a message sent after the entry and not awaited: the
   * caller's answer does not wait for it (a lost wake only delays the job to a taker's next poll; it is reported).
   * `recorded` is the job's record script when it announced the job to the other replicas or handed it off (then
   * only this replica's takers are woken, and none when it was handed off). The record script must have been sent
   * first on the connection of the step that follows (the claim on `queueFree` when there is a taker, BullMQ's add on
   * `queueOrdered` otherwise).
   */
  async dispatch(
    endpointId: string,
    jobId: string,
    taker: Reservation | undefined,
    recorded?: Promise<unknown>,
  ): Promise<void> {
    if (taker && (await this.handOver(endpointId, jobId, taker))) return;
    await this.parts.queues.add(endpointId, jobId);
    if (!recorded) this.wakeInBackground(endpointId, jobId);
    else if ((await recorded) !== HANDED_OFF) this.parts.wakeups.notify(PARKING.takers(endpointId), jobId);
  }

  /** Up to `count` jobs for a worker, parked up to `waitMs` until one arrives (empty when none did, or on abort). */
  take(request: TakeRequest): Promise<TakenJob[]> {
    const taking = this.parkedTake(request);
    this.takes.add(taking);
    return taking.finally(() => this.takes.delete(taking));
  }

  /** Chained rather than awaited, so a parked take keeps no suspended frame of this function. */
  private parkedTake({ endpointId, workerId, count, waitMs, signal }: TakeRequest): Promise<TakenJob[]> {
    const takeId = randomUuid();
    let registration: string | undefined;
    const parked = this.parts.wakeups.park({
      channel: PARKING.takers(endpointId),
      single: true,
      waitMs,
      signal,
      tag: workerId,
      id: takeId,
      // A job handed over by this replica (see handOver), already claimed for this worker.
      accept: (news) => (Array.isArray(news) ? (news as TakenJob[]) : undefined),
      // After a wake-up that named its job, that job is claimed by id: no fetch from the queue.
      // A retired worker's take ends empty (it is being removed).
      attempt: async (news) => {
        if (signal?.aborted) return [];
        const named = typeof news === 'string' ? await this.claimNamed(endpointId, workerId, news) : undefined;
        if (named === RETIRED) return [];
        if (named) return [named];
        const { taken, retired } = await this.fetchJobs(endpointId, workerId, count);
        if (taken.length > 0 || retired) return taken;
        // Nothing queued: a take that waits is registered for the other replicas' submissions (see handedOff).
        if (waitMs > 0) registration ??= await this.register(endpointId, workerId, takeId, waitMs);
        return undefined;
      },
    });
    return parked.then((jobs) => {
      if (registration !== undefined)
        this.inBackground(this.parts.queueFree.lrem(this.takersKey(endpointId), 1, registration));
      return jobs ?? [];
    });
  }

  /** Registers a parked take in Redis, where a submission on another replica finds it (the SUBMIT script). */
  private async register(endpointId: string, workerId: string, takeId: string, waitMs: number): Promise<string> {
    const { wakeups, clock, queueFree } = this.parts;
    const entry = encodeTakerEntry({ origin: wakeups.origin, takeId, expiresAt: clock.now() + waitMs, workerId });
    const key = this.takersKey(endpointId);
    await Promise.all([queueFree.rpush(key, entry), queueFree.pexpire(key, waitMs + TAKERS_KEY_GRACE_MS)]);
    return entry;
  }

  private takersKey(endpointId: string): string {
    return this.parts.keys.endpoint(endpointId, 'takers');
  }

  /**
   * A job another replica's submission claimed for a take parked here: it is the take's answer. A take that is gone
   * or no longer waiting (it hung up, timed out or is taking another job) has the claim undone: the job is IN_QUEUE
   * again and takers are woken.
   */
  private handedOff({ takeId, endpointId, jobId, workerId, input, extra, traceparent }: HandOffWake): void {
    let job: TakenJob;
    try {
      job = takenJob(jobId, [input, extra, traceparent]);
    } catch (error) {
      // Runs in the subscriber's message handler: a message it cannot read is reported, and the job queued.
      this.parts.onError(error as Error);
      this.inBackground(this.requeueHandedOff(endpointId, jobId, workerId));
      return;
    }
    // A failed give ends the reservation itself.
    if (this.parts.wakeups.reserve(PARKING.takers(endpointId), takeId)?.give([job])) {
      this.inBackground(turnEnd('after-io').then(() => this.dropEntry(endpointId, jobId)));
      return;
    }
    this.inBackground(this.requeueHandedOff(endpointId, jobId, workerId));
  }

  /**
   * Undoes the claim of a job handed off to a take that is gone, then queues it as usual: its entry is added again (a
   * taker may have dropped it while the job was claimed) and takers are woken.
   */
  private async requeueHandedOff(endpointId: string, jobId: string, workerId: string): Promise<void> {
    const { queueFree, keys, queues } = this.parts;
    if ((await SCRIPTS.unclaim.run(queueFree, { base: keys.base, endpointId, jobId, workerId })) !== 1) return;
    await queues.add(endpointId, jobId);
    await this.wakeTakers(endpointId, jobId);
  }

  /** Wakes takers without holding up the caller. */
  wakeInBackground(endpointId: string, jobId?: string): void {
    this.inBackground(this.wakeTakers(endpointId, jobId));
  }

  /** A job left the queue without being taken: its queue entry goes (a taker holding it drops it at claim). */
  async dropEntry(endpointId: string, jobId: string): Promise<void> {
    await this.parts.queues.remove(endpointId, jobId).catch(this.parts.onError);
  }

  /**
   * Ends the takes under way (a parked one returns as if its wait elapsed), then waits for them and for every side
   * effect they and earlier calls started (a take's registration removal among them): the engine closes its
   * connections only after this.
   */
  async close(): Promise<void> {
    await this.parts.wakeups.close();
    await Promise.allSettled([...this.takes]);
    await this.settled();
  }

  /** Resolves once the side effects started so far have ended. */
  async settled(): Promise<void> {
    await Promise.all(this.background);
  }

  /**
   * Gives a queued job straight to a take parked on this replica: claimed for its worker, then handed over as the
   * take's answer, skipping the queue's add, fetch and release (a parked take means the queue had nothing for it).
   * False when the job was not handed over (the claim failed, or the take hung up and the claim was undone): the job
   * is IN_QUEUE and the caller queues it. A retired worker's take is answered empty.
   */
  private async handOver(endpointId: string, jobId: string, taker: Reservation): Promise<boolean> {
    const { queueFree, keys } = this.parts;
    const workerId = taker.tag ?? '';
    let answered = false;
    try {
      const job = await this.claim(queueFree, endpointId, jobId, workerId);
      if (job === RETIRED) {
        answered = taker.give([]);
        return false;
      }
      if (!job) return false;
      answered = taker.give([job]);
      if (!answered) await SCRIPTS.unclaim.run(queueFree, { base: keys.base, endpointId, jobId, workerId });
      return answered;
    } finally {
      if (!answered) taker.release();
    }
  }

  /** Jobs fetched from the queue and claimed for a worker; `retired` when the worker was found retired. */
  private async fetchJobs(
    endpointId: string,
    workerId: string,
    count: number,
  ): Promise<{ taken: TakenJob[]; retired: boolean }> {
    const taken: TakenJob[] = [];
    while (taken.length < count) {
      const entry = await this.parts.queues.fetch(endpointId, randomUUID());
      if (!entry) break;
      // Released after the claim (sent in that order on one connection, awaited together): if this process dies in
      // between, BullMQ returns the entry and the claim is re-run. A failed release (the entry's lock ran out while
      // this process stalled) does not fail the take: BullMQ returns the entry, and the next claim of it finds the job
      // claimed and drops it.
      const claiming = this.claim(this.parts.queueOrdered, endpointId, entry.id, workerId);
      const [job] = await Promise.all([claiming, entry.release().catch(this.parts.onError)]);
      if (job === RETIRED) {
        // The job is still IN_QUEUE: its entry goes back to the head of the queue, for another taker.
        await this.parts.queues.putBack(endpointId, entry.id);
        this.wakeInBackground(endpointId, entry.id);
        return { taken, retired: true };
      }
      if (job) taken.push(job);
    }
    return { taken, retired: false };
  }

  /**
   * Claims the job a queued-job wake named, skipping the queue's fetch and release; its queue entry is removed after
   * the take has answered, in the background. A taker that fetches the entry first finds the job claimed and drops the entry; so
   * does one that fetches an entry added after the removal (a submission announced before its add). A retired
   * worker passes the wake on to another take of this replica.
   */
  private async claimNamed(endpointId: string, workerId: string, jobId: string): Promise<Claim> {
    const job = await this.claim(this.parts.queueFree, endpointId, jobId, workerId);
    if (job === RETIRED) this.parts.wakeups.notify(PARKING.takers(endpointId), jobId);
    // The removal waits for the end of the turn, so the take's answer goes out first.
    else if (job) this.inBackground(turnEnd('after-io').then(() => this.dropEntry(endpointId, jobId)));
    return job;
  }

  /**
   * Gives a queued job to a worker (the CLAIM script, sent on `client` at once, before anything the caller sends
   * next on it); see {@link Claim}.
   */
  private async claim(client: Redis, endpointId: string, jobId: string, workerId: string): Promise<Claim> {
    const args = { base: this.parts.keys.base, endpointId, jobId, workerId, now: this.parts.clock.now() };
    const claimed = await SCRIPTS.claim.run(client, args);
    if (claimed === RETIRED) return RETIRED;
    return claimed ? takenJob(jobId, claimed) : undefined;
  }

  /** Runs `work` without holding up the caller; its failure is reported; {@link settled} waits for it. */
  private inBackground(work: Promise<unknown>): void {
    const running = work.then(() => undefined, this.parts.onError);
    this.background.add(running);
    void running.finally(() => this.background.delete(running));
  }

  /** Wakes one taker of this replica and one of each other replica, naming the job when there is one. */
  private async wakeTakers(endpointId: string, jobId?: string): Promise<void> {
    this.parts.wakeups.notify(PARKING.takers(endpointId), jobId);
    await this.parts.queueFree.publish(
      this.parts.keys.wakeChannel,
      this.parts.wakeups.queuedMessage(endpointId, jobId),
    );
  }
}
