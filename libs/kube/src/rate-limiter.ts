import { TokenBucket } from 'limiter';

/** Client-side request budget: a steady rate with room for short bursts (client-go's QPS/Burst). */
export interface RateLimitOptions {
  /** Sustained requests per second. */
  qps: number;
  /** Requests that may go out back to back after an idle period (bucket size, at least 1). */
  burst: number;
}

/** Thrown to callers still waiting for a token when the limiter is closed. */
export class RateLimiterClosedError extends Error {
  constructor() {
    super('Kubernetes client closed while the request waited for its rate-limit token');
    this.name = 'RateLimiterClosedError';
  }
}

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Token bucket shared by every request of one set of Kubernetes clients. The bucket math is the `limiter`
 * package's; this class adds a FIFO queue that owns a single timer, so close() can fail the waiters and leave no
 * timer behind (limiter's own waiting promises cannot be cancelled).
 */
export class KubeRateLimiter {
  private readonly bucket: TokenBucket;
  private readonly queue: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private grantedCount = 0;

  constructor(readonly options: RateLimitOptions) {
    if (!(options.qps > 0) || !Number.isFinite(options.qps)) throw new RangeError('qps must be a positive number');
    if (!Number.isInteger(options.burst) || options.burst < 1) throw new RangeError('burst must be an integer >= 1');
    this.bucket = new TokenBucket({ bucketSize: options.burst, tokensPerInterval: options.qps, interval: 1000 });
    // A fresh client may send a full burst at once, as client-go's limiter allows; limiter's bucket starts empty.
    this.bucket.content = options.burst;
  }

  /** Tokens handed out so far. */
  get granted(): number {
    return this.grantedCount;
  }

  /** Requests currently waiting for a token. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves when the caller may send one request; requests are served in arrival order. */
  acquire(): Promise<void> {
    if (this.closed) return Promise.reject(new RateLimiterClosedError());
    if (this.queue.length === 0 && this.bucket.tryRemoveTokens(1)) {
      this.grantedCount += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ resolve, reject });
      this.schedule();
    });
  }

  /** Fails every waiting request and refuses new ones. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const waiter of this.queue.splice(0)) waiter.reject(new RateLimiterClosedError());
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    const delay = Math.max(1, Math.ceil(this.bucket.getWaitTime(1)));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.drain();
    }, delay);
  }

  private drain(): void {
    while (this.queue.length > 0 && this.bucket.tryRemoveTokens(1)) {
      this.grantedCount += 1;
      this.queue.shift()?.resolve();
    }
    if (this.queue.length > 0) this.schedule();
  }
}
