import { randomUUID } from 'node:crypto';
import type { Redis } from '@runplane/queue';

interface Waiter {
  wake: (news?: unknown) => void;
  woken: boolean;
  /** What the waker already knows (e.g. the finished job it just read), when it came from this replica. */
  news?: unknown;
}

/** How a long-poll waits: `attempt` returns a value to finish, or undefined to park until woken or timed out. */
export interface ParkOptions<T> {
  channel: string;
  attempt: () => Promise<T | undefined>;
  waitMs: number;
  signal?: AbortSignal;
  /** Wake only one parked caller per message (takes: one job, one taker) instead of all. */
  single?: boolean;
  /** Turns what a local waker passed along into the answer, sparing the attempt's round trip; undefined to attempt. */
  accept?: (news: unknown) => T | undefined;
}

/**
 * Long-poll wake-ups over Redis pub/sub, so every job-router replica hears them. Messages (published by the Lua
 * scripts and the engine): `t|<ep>` a job was queued, `j|<ep>|<id>` a job changed, `s|<ep>|<workerId>` a stop request.
 *
 * The replica that caused a change also wakes its own callers at once ({@link notify}), without waiting for the
 * message's round trip through Redis. A queued-job wake it publishes carries its origin (`t|<ep>|<origin>`) so its
 * own copy is not delivered twice (each replica wakes one taker per queued job); other messages that come back are
 * delivered again, which costs a parked caller one more look at the job at most.
 */
export class Wakeups {
  /** Tags this replica's queued-job wakes (see {@link queuedMessage}). */
  readonly origin = randomUUID();
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly subscriber: Redis;
  private readonly ready: Promise<unknown>;
  private closed = false;

  constructor(redis: Redis, channel: string) {
    this.subscriber = redis.duplicate();
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (_channel: string, message: string) => this.received(message));
    // A subscription cut short by close() must not fail the parked calls: they just end.
    this.ready = this.subscriber.subscribe(channel).catch(() => undefined);
  }

  /** Runs `attempt` now, then again each time the channel is woken, until it yields a value or the wait ends. */
  async park<T>(options: ParkOptions<T>): Promise<T | undefined> {
    await this.ready;
    if (this.closed) return undefined;
    const deadline = Date.now() + options.waitMs;
    for (;;) {
      const waiter = this.register(options.channel);
      let again = false;
      try {
        // Registered before the attempt, so a message arriving during it is not lost.
        const value = await options.attempt();
        if (value !== undefined) return value;
        const remaining = deadline - Date.now();
        if (remaining <= 0 || options.signal?.aborted) return undefined;
        again = waiter.woken || (await this.sleep(waiter, remaining, options.signal));
        if (!again || this.closed) return undefined;
        const known = waiter.news !== undefined ? options.accept?.(waiter.news) : undefined;
        if (known !== undefined) return known;
      } finally {
        // A take woken just as it leaves hands the wake to another parked taker, so no queued job sits unnoticed.
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

  /** True when a caller of this replica is parked on `message` (worth reading what it waits for along the way). */
  waiting(message: string): boolean {
    return this.waiters.has(message);
  }

  /** The message that announces a queued job of `endpointId` to the other replicas. */
  queuedMessage(endpointId: string): string {
    return `t|${endpointId}|${this.origin}`;
  }

  /** Number of parked callers (for tests and metrics). */
  parked(): number {
    let count = 0;
    for (const list of this.waiters.values()) count += list.length;
    return count;
  }

  /** Ends every parked call (each returns as if its wait elapsed) and the subscription. */
  async close(): Promise<void> {
    this.closed = true;
    for (const list of this.waiters.values()) for (const waiter of [...list]) waiter.wake();
    this.subscriber.disconnect();
  }

  private received(message: string): void {
    if (!message.startsWith('t|')) return this.deliver(message);
    const origin = message.indexOf('|', 2);
    if (origin < 0) return this.deliver(message);
    // Our own queued-job wake was delivered when it was sent.
    if (message.slice(origin + 1) !== this.origin) this.deliver(message.slice(0, origin));
  }

  private deliver(message: string, news?: unknown): void {
    const list = this.waiters.get(message);
    if (!list) return;
    if (message.startsWith('t|')) {
      list.find((waiter) => !waiter.woken)?.wake();
      return;
    }
    for (const waiter of list) waiter.wake(news);
  }

  private register(channel: string): Waiter {
    const waiter: Waiter = {
      woken: false,
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
    else if (passOn) list.find((other) => !other.woken)?.wake();
  }

  /** Resolves true when woken, false on timeout or abort. */
  private sleep(waiter: Waiter, ms: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (woken: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(woken);
      };
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), ms);
      signal?.addEventListener('abort', onAbort, { once: true });
      waiter.wake = (news) => {
        waiter.woken = true;
        waiter.news = news;
        done(true);
      };
    });
  }
}
