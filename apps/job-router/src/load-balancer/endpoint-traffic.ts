import type { LbRequestCounts } from '@runplane/jobs';

/** Seconds over which the request rate is averaged. */
const RATE_WINDOW_SECONDS = 10;

/**
 * One endpoint's traffic on this replica: requests waiting and in flight, the recent request rate, and the finished
 * requests not yet added to the shared counts.
 */
export class EndpointTraffic {
  waiting = 0;
  inFlight = 0;
  lastActivityAt: number;
  private readonly perSecond = new Array<number>(RATE_WINDOW_SECONDS).fill(0);
  private currentSecond: number;
  private pending: LbRequestCounts = { completed: 0, failed: 0 };

  constructor(now: number) {
    this.lastActivityAt = now;
    this.currentSecond = Math.floor(now / 1000);
  }

  /** A request arrived. */
  arrived(now: number): void {
    this.lastActivityAt = now;
    this.advance(now);
    const slot = this.currentSecond % RATE_WINDOW_SECONDS;
    this.perSecond[slot] = (this.perSecond[slot] ?? 0) + 1;
  }

  /** A request ended: answered by a worker (`completed`) or not (`failed`). */
  finished(outcome: keyof LbRequestCounts, now: number): void {
    this.lastActivityAt = now;
    this.pending[outcome] += 1;
  }

  /** Requests per second over the last {@link RATE_WINDOW_SECONDS} seconds. */
  requestsPerSecond(now: number): number {
    this.advance(now);
    return this.perSecond.reduce((sum, count) => sum + count, 0) / RATE_WINDOW_SECONDS;
  }

  /** The finished requests counted since the last call. */
  takeCounts(): LbRequestCounts {
    const counts = this.pending;
    this.pending = { completed: 0, failed: 0 };
    return counts;
  }

  /** Gives back counts {@link takeCounts} took but could not store. */
  restoreCounts(counts: LbRequestCounts): void {
    this.pending.completed += counts.completed;
    this.pending.failed += counts.failed;
  }

  /** Whether nothing happened for `idleMs` and nothing is pending. */
  idle(now: number, idleMs: number): boolean {
    const nothingPending = this.pending.completed === 0 && this.pending.failed === 0;
    return this.waiting === 0 && this.inFlight === 0 && nothingPending && now - this.lastActivityAt > idleMs;
  }

  private advance(now: number): void {
    const second = Math.floor(now / 1000);
    const elapsed = Math.min(second - this.currentSecond, RATE_WINDOW_SECONDS);
    for (let step = 1; step <= elapsed; step += 1)
      this.perSecond[(this.currentSecond + step) % RATE_WINDOW_SECONDS] = 0;
    if (second > this.currentSecond) this.currentSecond = second;
  }
}
