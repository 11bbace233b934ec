import { randomUuid } from '@runplane/db';
import type { EngineConnections } from './connections';
import { type Clock, JOB_TRACEPARENT, type TakenJob, type TakeRequest } from './engine';
import { isRefusedReply } from './admission';
import { type ClaimedJob, SCRIPTS, type SubmitReply, type TakeRegistration } from './engine-scripts';
import { encodeTakerEntry, type HandOffWake, type JobKeys, PARKING } from './protocol';
import type { Reservation, Wakeups } from './wakeups';

/** What a {@link JobDispatcher} works with: the job engine's connection free of BullMQ, keys and wake-ups. */
export interface JobDispatcherParts extends Pick<EngineConnections, 'queueFree'> {
  keys: JobKeys;
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

/**
 * The news a take gets when another replica's SUBMIT handed it a job (see handedOff): that script popped the take's
 * entry off `<ep>:takers`, so the take has no registration left to remove.
 */
class HandedOffJob {
  constructor(readonly job: TakenJob) {}
}

/** The take answer of a claimed job: RunPod's `{id, input, ...extra keys}` from the CLAIM script's reply. */
function takenJob(id: string, [input, extra, traceparent]: ClaimedJob): TakenJob {
  const { id: _id, input: _input, ...rest } = JSON.parse(extra) as Record<string, unknown>;
  const job: TakenJob = { id, input: JSON.parse(input) as Record<string, unknown>, ...rest };
  if (traceparent) job[JOB_TRACEPARENT] = traceparent;
  return job;
}

/** Whether SUBMIT's reply is a claim's (it claimed the job for `claimFor`, or found that worker retired). */
function isClaimReply(reply: SubmitReply): reply is ClaimedJob | typeof RETIRED {
  return typeof reply !== 'number' && !isRefusedReply(reply);
}

/** A claim script's reply as a {@link Claim}. */
function claimOf(jobId: string, reply: ClaimedJob | typeof RETIRED | null): Claim {
  if (reply === RETIRED) return RETIRED;
  return reply ? takenJob(jobId, reply) : undefined;
}

/**
 * How queued jobs reach takes. A job waits in its endpoint's queue (the engine's `queued` sorted set, oldest first)
 * while no take is parked; a take gives its worker the oldest jobs in one script (TAKE). A job queued while a take is
 * parked goes to it directly: the replica that queued it claims it for a take parked on itself, in the script that
 * records it ({@link dispatchSubmitted}); else the job's record script claims it for the oldest take registered in Redis by another replica
 * and publishes it to that replica ({@link handedOff}); else, while takes are registered (the job is too large for a
 * hand-off), the script names the job in the wake it publishes, and a take woken on another replica claims it by id.
 * With no take registered, nothing is published: every take still to look at the queue will find the job there.
 */
export class JobDispatcher {
  /** Side effects under way that callers did not wait for (wakes, registration removals); see {@link settled}. */
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

  /**
   * Dispatches a job that is IN_QUEUE in its record (a retry, a re-queue): to a take parked on this replica (claimed
   * for it, then handed over), else wakes takers: this replica's at once, the others' by a message not awaited (a lost
   * wake only delays the job to a taker's next poll; it is reported).
   */
  async enqueue(endpointId: string, jobId: string): Promise<void> {
    const taker = this.reserve(endpointId);
    if (taker && (await this.handOver(endpointId, jobId, taker, this.claim(endpointId, jobId, taker.tag ?? ''))))
      return;
    this.wakeInBackground(endpointId, jobId);
  }

  /**
   * Dispatches a job as its SUBMIT script (`recorded`) records it. With a `taker` reserved on this replica, the script
   * claimed the job for the taker's worker (its `claimFor`): it is handed over, or, when that failed (a
   * retired worker, a take that hung up), queued and announced. Without one, the script handed the job off or announced
   * it to the other replicas, and this replica's takers are woken once it is recorded, unless it was handed off. A job
   * its admission refused was not recorded: nothing is dispatched, and the taker looks again.
   */
  async dispatchSubmitted(
    endpointId: string,
    jobId: string,
    taker: Reservation | undefined,
    recorded: Promise<SubmitReply>,
  ): Promise<void> {
    if (taker) {
      const claimed = recorded.then((reply): Claim => (isClaimReply(reply) ? claimOf(jobId, reply) : undefined));
      const handedOver = await this.handOver(endpointId, jobId, taker, claimed);
      if (!handedOver && !isRefusedReply(await recorded)) this.wakeInBackground(endpointId, jobId);
      return;
    }
    const reply = await recorded;
    if (reply !== HANDED_OFF && !isRefusedReply(reply)) this.parts.wakeups.notify(PARKING.takers(endpointId), jobId);
  }

  /** Up to `count` jobs for a worker, parked up to `waitMs` until one arrives (empty when none did, or on abort). */
  take(request: TakeRequest): Promise<TakenJob[]> {
    const taking = this.parkedTake(request);
    this.takes.add(taking);
    return taking.finally(() => this.takes.delete(taking));
  }

  /**
   * Chained rather than awaited, so a parked take keeps no suspended frame of this function. A take that waits is
   * registered for the other replicas' submissions (see handedOff) by the very look that finds the queue empty (TAKE),
   * so a submission either finds the job's take registered or leaves the job queued for it.
   */
  private parkedTake({ endpointId, workerId, count, waitMs, signal }: TakeRequest): Promise<TakenJob[]> {
    const { wakeups, clock } = this.parts;
    const takeId = randomUuid();
    const entry = encodeTakerEntry({ origin: wakeups.origin, takeId, expiresAt: clock.now() + waitMs, workerId });
    // Whether the take's entry is in `<ep>:takers`: registered by a look that found nothing, until a hand-off pops it.
    let registered = false;
    const parked = wakeups.park({
      channel: PARKING.takers(endpointId),
      single: true,
      waitMs,
      signal,
      tag: workerId,
      id: takeId,
      // A job handed over by this replica (see handOver) or handed off by another (handedOff), already claimed for
      // this worker.
      accept: (news) => {
        if (!(news instanceof HandedOffJob)) return Array.isArray(news) ? (news as TakenJob[]) : undefined;
        registered = false;
        return [news.job];
      },
      // After a wake-up that named its job, that job is claimed by id: no look at the queue.
      // A retired worker's take ends empty (it is being removed).
      attempt: async (news) => {
        if (signal?.aborted) return [];
        const named = typeof news === 'string' ? await this.claimNamed(endpointId, workerId, news) : undefined;
        if (named === RETIRED) return [];
        if (named) return [named];
        const registration = waitMs > 0 ? { entry, again: registered, ttlMs: waitMs + TAKERS_KEY_GRACE_MS } : undefined;
        const taken = await this.takeQueued(endpointId, workerId, count, registration);
        if (taken === RETIRED) return [];
        if (taken.length > 0) return taken;
        registered ||= registration !== undefined;
        return undefined;
      },
    });
    return parked.then((jobs) => {
      // The entry is there once (a look again moves it, never copies it), most often near the head, where the oldest
      // registrations are (the ones that time out, and those handed a job first): LREM stops at it.
      if (registered) this.inBackground(this.parts.queueFree.lrem(this.takersKey(endpointId), 1, entry));
      return jobs ?? [];
    });
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
      this.requeueMissedHandOff(endpointId, jobId, workerId, takeId);
      return;
    }
    // A failed give ends the reservation itself.
    if (this.parts.wakeups.reserve(PARKING.takers(endpointId), takeId)?.give(new HandedOffJob(job))) return;
    this.requeueMissedHandOff(endpointId, jobId, workerId, takeId);
  }

  /**
   * A hand-off its take could not accept: the job is queued again, and the take, if it is still parked (it was in the
   * middle of a look), looks again, which registers it again: the submission took its entry off the list.
   */
  private requeueMissedHandOff(endpointId: string, jobId: string, workerId: string, takeId: string): void {
    this.parts.wakeups.nudge(PARKING.takers(endpointId), takeId);
    this.inBackground(this.requeueHandedOff(endpointId, jobId, workerId));
  }

  /** Undoes the claim of a job handed off to a take that is gone (it is queued at its first place again), wakes takers. */
  private async requeueHandedOff(endpointId: string, jobId: string, workerId: string): Promise<void> {
    const { queueFree, keys } = this.parts;
    if ((await SCRIPTS.unclaim.run(queueFree, { base: keys.base, endpointId, jobId, workerId })) !== 1) return;
    await this.wakeTakers(endpointId, jobId);
  }

  /** Wakes takers without holding up the caller. */
  private wakeInBackground(endpointId: string, jobId?: string): void {
    this.inBackground(this.wakeTakers(endpointId, jobId));
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
   * Gives a queued job straight to a take parked on this replica: `claiming` claims it for the take's worker, then it
   * is handed over as the take's answer, skipping the queue (a parked take means the queue had nothing for it).
   * False when the job was not handed over (the claim failed, or the take hung up and the claim was undone): the job
   * is IN_QUEUE and the caller wakes takers. A retired worker's take is answered empty.
   */
  private async handOver(
    endpointId: string,
    jobId: string,
    taker: Reservation,
    claiming: Promise<Claim>,
  ): Promise<boolean> {
    const { queueFree, keys } = this.parts;
    const workerId = taker.tag ?? '';
    let answered = false;
    try {
      const job = await claiming;
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

  /**
   * Up to `count` of the endpoint's oldest queued jobs, given to the worker (the TAKE script), or RETIRED. With none,
   * the take is registered as `registration` says.
   */
  private async takeQueued(
    endpointId: string,
    workerId: string,
    count: number,
    registration?: TakeRegistration,
  ): Promise<TakenJob[] | typeof RETIRED> {
    const args = { base: this.parts.keys.base, endpointId, workerId, now: this.parts.clock.now(), count, registration };
    const reply = await SCRIPTS.take.run(this.parts.queueFree, args);
    if (reply === RETIRED) return RETIRED;
    const taken: TakenJob[] = [];
    for (let i = 0; i < reply.length; i += 4) {
      const [id = '', input = '', extra = '', traceparent = ''] = reply.slice(i, i + 4);
      taken.push(takenJob(id, [input, extra, traceparent]));
    }
    return taken;
  }

  /**
   * Claims the job a queued-job wake named, skipping the queue: a take that looks at the queue no longer finds it. A
   * retired worker passes the wake on to another take of this replica.
   */
  private async claimNamed(endpointId: string, workerId: string, jobId: string): Promise<Claim> {
    const job = await this.claim(endpointId, jobId, workerId);
    if (job === RETIRED) this.parts.wakeups.notify(PARKING.takers(endpointId), jobId);
    return job;
  }

  /**
   * Gives a queued job to a worker (the CLAIM script, sent on `queueFree` at once, before anything the caller sends
   * next on it); see {@link Claim}.
   */
  private async claim(endpointId: string, jobId: string, workerId: string): Promise<Claim> {
    const args = { base: this.parts.keys.base, endpointId, jobId, workerId, now: this.parts.clock.now() };
    return claimOf(jobId, await SCRIPTS.claim.run(this.parts.queueFree, args));
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
