import { randomUUID } from 'node:crypto';
import type { Redis } from '@runplane/queue';
import { channelOf, encodeWake, handOffChannel, type HandOffWake, isTakersChannel, parseWake } from './protocol';

interface Waiter {
  wake: (news?: unknown) => void;
  woken: boolean;
  /** What the waker already knows (e.g. the finished job it just read), when it came from this replica. */
  news?: unknown;
  /** The parked caller's {@link ParkOptions.tag}. */
  tag?: string;
  /** The parked caller's {@link ParkOptions.id}. */
  id?: string;
  signal?: AbortSignal;
  /** Waiting for a wake-up (its attempt found nothing), as opposed to still running its attempt. */
  sleeping: boolean;
  /** Held by a {@link Reservation}: only the reservation wakes it, and its wait ends only once the reservation does. */
  reserved: boolean;
  /** Ends the wait unwoken. */
  end: () => void;
}

/**
 * A parked caller set aside for a hand-over ({@link Wakeups.reserve}): no wake-up, timeout or abort ends it until the
 * reservation does, with {@link give} or {@link release}.
 */
export interface Reservation {
  /** The caller's {@link ParkOptions.tag} (e.g. the worker id of a parked take). */
  readonly tag: string | undefined;
  /** Answers the caller with `news` (its `accept` turns it into the answer); false when the caller hung up meanwhile. */
  give(news: unknown): boolean;
  /** Lets the caller go unanswered: it looks again (or, if its wait ran out meanwhile, ends as it would have). */
  release(): void;
}

/**
 * How a long-poll waits: `attempt` returns a value to finish, or undefined to park until woken or timed out. After a
 * wake-up it is given what the waker passed along (e.g. the id of the job that was queued), if `accept` did not
 * already make an answer of it.
 */
export interface ParkOptions<T> {
  channel: string;
  attempt: (news?: unknown) => Promise<T | undefined>;
  waitMs: number;
  signal?: AbortSignal;
  /** Wake only one parked caller per message (takes: one job, one taker) instead of all. */
  single?: boolean;
  /** Turns what a local waker passed along into the answer, sparing the attempt's round trip; undefined to attempt. */
  accept?: (news: unknown) => T | undefined;
  /** Told to whoever reserves this caller (see {@link Wakeups.reserve}). */
  tag?: string;
  /** Names this caller for {@link Wakeups.reserve}. */
  id?: string;
}

/**
 * Long-poll wake-ups over Redis pub/sub, so every job-router replica hears them. Callers park on the channels of
 * `PARKING` (protocol/channels.ts); the messages (`WakeMessage`, protocol/wake-messages.ts, published by the Lua
 * scripts and the engine) each wake the channel `channelOf` names, except a hand-off, which goes to the take it names
 * (see {@link onHandOff}). A hand-off is published on its take's replica's own channel (`handOffChannel`), which this
 * replica hears beside the shared one.
 *
 * The replica that caused a change also wakes its own callers at once ({@link notify}), without waiting for the
 * message's round trip through Redis. A queued-job wake it publishes carries its origin and the job's id: its own copy
 * is not delivered twice (each replica wakes one taker per queued job), and the taker woken elsewhere is told which
 * job to claim. Other messages that come back are delivered again, which costs a parked caller one more look at the
 * job at most.
 */
export class Wakeups {
  /** Tags this replica's queued-job wakes (see {@link queuedMessage}). */
  readonly origin = randomUUID();
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly subscriber: Redis;
  private readonly ready: Promise<unknown>;
  private closed = false;
  /** Receives the hand-offs published for this replica's takes; see {@link onHandOff}. */
  private handOffs: ((handOff: HandOffWake) => void) | undefined;

  constructor(redis: Redis, channel: string) {
    this.subscriber = redis.duplicate();
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (_channel: string, message: string) => this.received(message));
    // A subscription cut short by close() must not fail the parked calls: they just end. A hand-off is taken from
    // either channel: replicas of an earlier release publish every one on the shared channel.
    this.ready = this.subscriber.subscribe(channel, handOffChannel(channel, this.origin)).catch(() => undefined);
  }

  /** Runs `attempt` now, then again each time the channel is woken, until it yields a value or the wait ends. */
  async park<T>(options: ParkOptions<T>): Promise<T | undefined> {
    await this.ready;
    if (this.closed) return undefined;
    const deadline = Date.now() + options.waitMs;
    let news: unknown;
    for (;;) {
      const waiter = this.register(options.channel, options.tag, options.id, options.signal);
      let again = false;
      try {
        // Registered before the attempt, so a message arriving during it is not lost.
        const value = await options.attempt(news);
        if (value !== undefined) return value;
        const remaining = deadline - Date.now();
        if (remaining <= 0 || options.signal?.aborted) return undefined;
        again = waiter.woken || (await this.sleep(waiter, remaining, options.signal));
        if (!again || this.closed) return undefined;
        news = waiter.news;
        const known = news !== undefined ? options.accept?.(news) : undefined;
        if (known !== undefined) return known;
      } finally {
        // A take woken just as it leaves hands the wake (and its news) to another parked taker, so no queued job sits
        // unnoticed.
        this.unregister(options.channel, waiter, options.single === true && waiter.woken && !again);
      }
    }
  }

  /**
   * Wakes this replica's callers parked on `message` now (the published copy reaches the other replicas). `news` is
   * handed to each caller's `accept`, e.g. the record of the job that just finished.
   */
  notify(message: string, news?: unknown): void {
    this.deliver(message, news);
  }

  /**
   * Sets aside one caller parked on `channel` (the one parked under {@link ParkOptions.id} `id`, when given) that is
   * waiting for a wake-up (not mid-attempt, not hung up), for a hand-over: e.g. a job claimed for it directly.
   * Undefined when there is none. Wake-ups skip it meanwhile; the caller must end it with `give` or `release`.
   */
  reserve(channel: string, id?: string): Reservation | undefined {
    const waiter = this.waiters
      .get(channel)
      ?.find((candidate) => (id === undefined || candidate.id === id) && isReservable(candidate));
    return waiter && this.reservation(waiter);
  }

  /**
   * Wakes the caller parked on `channel` under {@link ParkOptions.id} `id`, without news, so it attempts again (at once,
   * or as soon as the attempt under way ends); nothing when it is gone, woken already or reserved (its reservation
   * wakes it).
   */
  nudge(channel: string, id: string): void {
    this.waiters
      .get(channel)
      ?.find((waiter) => waiter.id === id && isFree(waiter))
      ?.wake();
  }

  /** Routes the hand-offs published for this replica's takes to `handler`. */
  onHandOff(handler: (handOff: HandOffWake) => void): void {
    this.handOffs = handler;
  }

  private reservation(waiter: Waiter): Reservation {
    waiter.reserved = true;
    // True the first time only, while the caller is still waiting (Wakeups.close may have woken it meanwhile).
    const finish = (): boolean => {
      const held = waiter.reserved;
      waiter.reserved = false;
      return held && !waiter.woken;
    };
    return {
      tag: waiter.tag,
      give: (news) => {
        if (!finish()) return false;
        if (waiter.signal?.aborted) {
          waiter.end();
          return false;
        }
        waiter.wake(news);
        return true;
      },
      release: () => {
        if (!finish()) return;
        if (waiter.signal?.aborted) waiter.end();
        // Woken without news: it attempts again (a wake it missed while reserved is not lost), then ends if its wait ran out.
        else waiter.wake();
      },
    };
  }

  /** True when a caller of this replica is parked on `message` (worth reading what it waits for along the way). */
  waiting(message: string): boolean {
    return this.waiters.has(message);
  }

  /** The message that announces a queued job of `endpointId` (and its id, when known) to the other replicas. */
  queuedMessage(endpointId: string, jobId?: string): string {
    return encodeWake({ type: 'queued', endpointId, origin: this.origin, ...(jobId === undefined ? {} : { jobId }) });
  }

  /** Number of callers waiting for a wake-up (not mid-attempt), for tests and metrics. */
  parked(): number {
    let count = 0;
    for (const list of this.waiters.values()) for (const waiter of list) if (waiter.sleeping) count += 1;
    return count;
  }

  /** Ends every parked call (each returns as if its wait elapsed) and the subscription. */
  async close(): Promise<void> {
    this.closed = true;
    for (const list of this.waiters.values()) for (const waiter of [...list]) waiter.wake();
    this.subscriber.disconnect();
  }

  private received(text: string): void {
    const message = parseWake(text);
    if (!message) return;
    if (message.type === 'handOff') {
      if (message.origin === this.origin) this.handOffs?.(message);
      return;
    }
    // Our own queued-job wake was delivered when it was sent.
    if (message.type === 'queued' && message.origin === this.origin) return;
    const channel = channelOf(message);
    if (channel !== undefined) this.deliver(channel, message.type === 'queued' ? message.jobId : undefined);
  }

  private deliver(message: string, news?: unknown): void {
    const list = this.waiters.get(message);
    if (!list) return;
    if (isTakersChannel(message)) {
      list.find(isFree)?.wake(news);
      return;
    }
    for (const waiter of list) if (!waiter.reserved) waiter.wake(news);
  }

  private register(
    channel: string,
    tag: string | undefined,
    id: string | undefined,
    signal: AbortSignal | undefined,
  ): Waiter {
    const waiter: Waiter = {
      woken: false,
      tag,
      id,
      signal,
      sleeping: false,
      reserved: false,
      end: () => undefined,
      wake: (news) => {
        waiter.woken = true;
        waiter.news = news;
      },
    };
    const list = this.waiters.get(channel) ?? [];
    list.push(waiter);
    this.waiters.set(channel, list);
    return waiter;
  }

  /** `passOn`: this caller was woken for a queued job it never tried to take, so another parked taker gets the wake. */
  private unregister(channel: string, waiter: Waiter, passOn: boolean): void {
    const list = this.waiters.get(channel);
    if (!list) return;
    const index = list.indexOf(waiter);
    if (index >= 0) list.splice(index, 1);
    if (list.length === 0) this.waiters.delete(channel);
    else if (passOn) list.find(isFree)?.wake(waiter.news);
  }

  /** Resolves true when woken, false on timeout or abort (deferred while the waiter is reserved). */
  private sleep(waiter: Waiter, ms: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (woken: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        waiter.sleeping = false;
        resolve(woken);
      };
      // A reserved waiter's timeout or abort is settled when the reservation ends (give or release).
      const onAbort = () => {
        if (!waiter.reserved) done(false);
      };
      const timer = setTimeout(onAbort, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
      waiter.sleeping = true;
      waiter.end = () => done(false);
      waiter.wake = (news) => {
        waiter.woken = true;
        waiter.news = news;
        done(true);
      };
    });
  }
}

/** A waiter a hand-over may reserve: free, waiting for a wake-up, not hung up. */
function isReservable(waiter: Waiter): boolean {
  return isFree(waiter) && waiter.sleeping && !waiter.signal?.aborted;
}

/** A waiter any wake-up may take: not woken yet and not held by a reservation. */
function isFree(waiter: Waiter): boolean {
  return !waiter.woken && !waiter.reserved;
}
