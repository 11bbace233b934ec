// The scheduler loop's pacing: settled() waits for the passes triggered so far, and only those, even when passes are
// slow enough that the loop never rests between them (a loaded machine). The pass itself is a timed stand-in here:
// what it does is the other services' concern and is tested with them.
import { setTimeout as delay } from 'node:timers/promises';
import { type LoopParts, SchedulerLoop } from './scheduler-loop';

/** One pass as the loop ran it: when it started and ended (performance.now()). */
interface PassRecord {
  startedAt: number;
  endedAt?: number;
}

/** A loop whose every pass takes `passMs`; `passes` records them. */
function timedLoop(passMs: number, tickMs: number): { loop: SchedulerLoop; passes: PassRecord[] } {
  const passes: PassRecord[] = [];
  const leader = {
    // The pass's first step; answering "not the leader" ends the pass there.
    async acquireOrRenew() {
      const record: PassRecord = { startedAt: performance.now() };
      passes.push(record);
      await delay(passMs);
      record.endedAt = performance.now();
      return false;
    },
    async release() {},
  };
  const driver = { onChange() {} };
  const parts = { leader, driver, log: () => undefined } as unknown as LoopParts;
  return { loop: new SchedulerLoop(parts, tickMs), passes };
}

describe('SchedulerLoop.settled', () => {
  it('returns after the pass a trigger asked for, even when the ticks keep the loop busy without rest', async () => {
    // Each 60 ms pass outlasts the 50 ms tick, which asks for the next pass during it: the loop runs a pass, rests
    // 50 ms (at most a tick), runs the next, and is never idle.
    const { loop, passes } = timedLoop(60, 50);
    loop.start();
    try {
      await delay(400);
      const triggeredAt = performance.now();
      loop.trigger();
      const gaveUp = delay(3000, 'gave up');
      expect(await Promise.race([loop.settled().then(() => 'settled'), gaveUp])).toBe('settled');
      const settledAt = performance.now();
      const asked = passes.find((pass) => pass.startedAt >= triggeredAt);
      expect(asked?.endedAt).toBeLessThanOrEqual(settledAt);
      // No pass after it was waited for.
      const later = passes.filter(
        (pass) => pass.startedAt > (asked?.startedAt ?? 0) && (pass.endedAt ?? Infinity) <= settledAt,
      );
      expect(later).toEqual([]);
    } finally {
      await loop.stop();
    }
  });

  it('returns at once when no pass is running or asked for', async () => {
    const { loop, passes } = timedLoop(5, 60_000);
    loop.start();
    try {
      await loop.settled();
      expect(passes).toHaveLength(1);
      await delay(50);
      const before = passes.length;
      await loop.settled();
      expect(passes).toHaveLength(before);
    } finally {
      await loop.stop();
    }
  });

  it('stopping ends a wait for a pass that will no longer run', async () => {
    const { loop, passes } = timedLoop(20, 60_000);
    loop.start();
    await loop.settled();
    // Right after a pass the loop rests; this trigger waits out the rest, which stop() cancels.
    loop.trigger();
    const waiting = loop.settled();
    await loop.stop();
    await waiting;
    expect(passes).toHaveLength(1);
  });
});
