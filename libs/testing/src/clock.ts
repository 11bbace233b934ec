/** A clock tests move by hand, so ttl, retention and timeout rules run without sleeping. */
export class FakeClock {
  private current: number;

  constructor(start = Date.UTC(2030, 0, 1)) {
    this.current = start;
  }

  /** Milliseconds since the epoch, as the injected `Clock` of the code under test reads it. */
  now(): number {
    return this.current;
  }

  /** Moves time forward by `ms` (never backwards: rules assume a monotonic clock). */
  advance(ms: number): number {
    if (!(ms >= 0)) throw new Error(`FakeClock.advance: ms must be >= 0, got ${ms}`);
    this.current += ms;
    return this.current;
  }

  /** Jumps to an absolute time, which must not be before the current one. */
  set(time: number): void {
    if (time < this.current) throw new Error('FakeClock.set: time cannot go backwards');
    this.current = time;
  }
}
