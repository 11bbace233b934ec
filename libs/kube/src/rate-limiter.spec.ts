import { KubeRateLimiter, RateLimiterClosedError } from './rate-limiter';

/** Count how many of `promises` have settled so far without awaiting the rest. */
function tracker(promises: Promise<void>[]): { done: () => number } {
  let settled = 0;
  for (const p of promises)
    void p.then(
      () => (settled += 1),
      () => (settled += 1),
    );
  return { done: () => settled };
}

describe('KubeRateLimiter', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('lets a full burst through at once, then one request per 1/qps seconds in arrival order', async () => {
    const limiter = new KubeRateLimiter({ qps: 10, burst: 5 });
    const order: number[] = [];
    const calls = Array.from({ length: 20 }, (_, i) => limiter.acquire().then(() => void order.push(i)));
    const progress = tracker(calls);
    await jest.advanceTimersByTimeAsync(0);
    expect(progress.done()).toBe(5);
    expect(limiter.waiting).toBe(15);

    await jest.advanceTimersByTimeAsync(100);
    expect(progress.done()).toBe(6);

    await jest.advanceTimersByTimeAsync(1_000);
    expect(progress.done()).toBe(16);

    await jest.advanceTimersByTimeAsync(400);
    expect(progress.done()).toBe(20);
    expect(order).toEqual([...Array(20).keys()]);
    expect(limiter.granted).toBe(20);
    expect(limiter.waiting).toBe(0);
  });

  it('refills at most a burst while idle', async () => {
    const limiter = new KubeRateLimiter({ qps: 2, burst: 3 });
    await Promise.all([limiter.acquire(), limiter.acquire(), limiter.acquire()]);
    await jest.advanceTimersByTimeAsync(60_000);
    const calls = Array.from({ length: 5 }, () => limiter.acquire());
    const progress = tracker(calls);
    await jest.advanceTimersByTimeAsync(0);
    expect(progress.done()).toBe(3);
    await jest.advanceTimersByTimeAsync(500);
    expect(progress.done()).toBe(4);
  });

  it('close() fails waiting and later requests and leaves no timer', async () => {
    const limiter = new KubeRateLimiter({ qps: 1, burst: 1 });
    await limiter.acquire();
    const waiting = limiter.acquire();
    limiter.close();
    await expect(waiting).rejects.toBeInstanceOf(RateLimiterClosedError);
    await expect(limiter.acquire()).rejects.toBeInstanceOf(RateLimiterClosedError);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('rejects a budget that could never send a request', () => {
    expect(() => new KubeRateLimiter({ qps: 0, burst: 1 })).toThrow(RangeError);
    expect(() => new KubeRateLimiter({ qps: 5, burst: 0 })).toThrow(RangeError);
    expect(() => new KubeRateLimiter({ qps: Number.NaN, burst: 1 })).toThrow(RangeError);
  });
});
