import { InformerSupervisor, type SupervisedInformer } from './informer';
import { ExponentialBackoff } from './backoff';

/** An informer whose start() outcome the test decides, recording when it was (re)started. */
class FakeInformer implements SupervisedInformer {
  starts = 0;
  stops = 0;
  failNextStart: Error | undefined;
  private errorListeners: ((error?: unknown) => void)[] = [];

  on(_event: 'error', callback: (error?: unknown) => void): void {
    this.errorListeners.push(callback);
  }

  async start(): Promise<void> {
    this.starts += 1;
    const failure = this.failNextStart;
    this.failNextStart = undefined;
    if (failure) throw failure;
  }

  async stop(): Promise<void> {
    this.stops += 1;
  }

  emitError(error: unknown): void {
    for (const listener of this.errorListeners) listener(error);
  }
}

describe('ExponentialBackoff', () => {
  it('doubles from the initial delay up to the cap and starts over after reset', () => {
    const backoff = new ExponentialBackoff({ initialMs: 100, maxMs: 1_000, factor: 2, healthyAfterMs: 0 });
    expect([backoff.next(), backoff.next(), backoff.next(), backoff.next(), backoff.next()]).toEqual([
      100, 200, 400, 800, 1000,
    ]);
    expect(backoff.attempts).toBe(5);
    backoff.reset();
    expect(backoff.next()).toBe(100);
  });

  it('rejects settings that would spin or shrink', () => {
    expect(() => new ExponentialBackoff({ initialMs: 0, maxMs: 10, factor: 2, healthyAfterMs: 0 })).toThrow(RangeError);
    expect(() => new ExponentialBackoff({ initialMs: 10, maxMs: 5, factor: 2, healthyAfterMs: 0 })).toThrow(RangeError);
    expect(() => new ExponentialBackoff({ initialMs: 10, maxMs: 50, factor: 0.5, healthyAfterMs: 0 })).toThrow(
      RangeError,
    );
  });
});

describe('InformerSupervisor', () => {
  const backoff = { initialMs: 100, maxMs: 400, factor: 2, healthyAfterMs: 10_000 };
  let informer: FakeInformer;
  let reported: number[];
  let supervisor: InformerSupervisor;

  beforeEach(() => {
    jest.useFakeTimers();
    informer = new FakeInformer();
    reported = [];
    supervisor = new InformerSupervisor(informer, (_error, retryInMs) => reported.push(retryInMs), backoff);
    supervisor.start();
  });
  afterEach(() => jest.useRealTimers());

  it('restarts after an error once the backoff delay has passed', async () => {
    informer.emitError(new Error('ECONNRESET'));
    expect(supervisor.restartPending).toBe(true);
    await jest.advanceTimersByTimeAsync(99);
    expect(informer.starts).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(informer.starts).toBe(2);
    expect(supervisor.restarts).toBe(1);
    expect(reported).toEqual([100]);
  });

  it('keeps only one restart pending however many errors arrive', async () => {
    informer.emitError(new Error('a'));
    informer.emitError(new Error('b'));
    informer.emitError(new Error('c'));
    expect(jest.getTimerCount()).toBe(1);
    await jest.advanceTimersByTimeAsync(100);
    expect(informer.starts).toBe(2);
    expect(reported).toEqual([100]);
  });

  it('backs off exponentially up to the cap while restarts keep failing', async () => {
    informer.failNextStart = new Error('list failed');
    informer.emitError(new Error('watch failed'));
    await jest.advanceTimersByTimeAsync(100); // restart 1 fails at once
    informer.failNextStart = new Error('list failed');
    await jest.advanceTimersByTimeAsync(200); // restart 2 fails
    informer.failNextStart = new Error('list failed');
    await jest.advanceTimersByTimeAsync(400); // restart 3 fails
    await jest.advanceTimersByTimeAsync(400); // restart 4 succeeds
    expect(reported).toEqual([100, 200, 400, 400]);
    expect(informer.starts).toBe(5);
    expect(supervisor.restartPending).toBe(false);
  });

  it('starts over from the initial delay after a healthy run', async () => {
    informer.emitError(new Error('first'));
    await jest.advanceTimersByTimeAsync(100);
    informer.emitError(new Error('quick second'));
    await jest.advanceTimersByTimeAsync(200);
    await jest.advanceTimersByTimeAsync(10_000);
    informer.emitError(new Error('after a healthy minute'));
    expect(reported).toEqual([100, 200, 100]);
  });

  it('stop() cancels a pending restart and ignores later errors', async () => {
    informer.emitError(new Error('x'));
    await supervisor.stop();
    informer.emitError(new Error('y'));
    await jest.advanceTimersByTimeAsync(10_000);
    expect(informer.starts).toBe(1);
    expect(informer.stops).toBe(1);
    expect(jest.getTimerCount()).toBe(0);
  });
});
