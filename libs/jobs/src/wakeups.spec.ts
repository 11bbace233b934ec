import { createRedis, type Redis } from '@runplane/queue';
import { testRedisPrefix } from '@runplane/testing';
import { Wakeups } from './wakeups';

const REDIS_URL = 'redis://127.0.0.1:6379';

/** Parks a caller on `channel` whose attempt finds nothing until woken; resolves 'woken' or 'timeout'. */
function parkOn(wakeups: Wakeups, channel: string, single = false): Promise<'woken' | 'timeout'> {
  let attempts = 0;
  return wakeups
    .park({ channel, single, waitMs: 60_000, attempt: async () => (++attempts > 1 ? 'woken' : undefined) })
    .then((value) => value ?? 'timeout');
}

/** Resolves once `wakeups` has `count` parked callers. */
async function parked(wakeups: Wakeups, count: number): Promise<void> {
  while (wakeups.parked() < count) await new Promise((resolve) => setImmediate(resolve));
}

describe('Wakeups across replicas', () => {
  const channel = `${testRedisPrefix('wakeups')}wake`;
  let redis: Redis;
  let a: Wakeups;
  let b: Wakeups;

  beforeAll(() => {
    redis = createRedis(REDIS_URL);
    a = new Wakeups(redis, channel);
    b = new Wakeups(redis, channel);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await redis.quit();
  });

  it('wakes a caller of its own replica at once, without a message through Redis', async () => {
    const waiting = parkOn(a, 'j|ep1|job1');
    await parked(a, 1);
    a.notify('j|ep1|job1');
    await expect(waiting).resolves.toBe('woken');
  });

  it('answers a caller with what a local waker passed along, without another attempt', async () => {
    let attempts = 0;
    const waiting = a.park({
      channel: 'j|ep4|job4',
      waitMs: 60_000,
      attempt: async () => (++attempts > 1 ? 'read again' : undefined),
      accept: (news) => (typeof news === 'string' ? `news: ${news}` : undefined),
    });
    await parked(a, 1);
    a.notify('j|ep4|job4', 'finished');
    await expect(waiting).resolves.toBe('news: finished');
    expect(attempts).toBe(1);
  });

  it('delivers a queued-job wake once on its own replica and once on each other replica', async () => {
    const [a1, a2] = [parkOn(a, 't|ep2', true), parkOn(a, 't|ep2', true)];
    const b1 = parkOn(b, 't|ep2', true);
    await parked(a, 2);
    await parked(b, 1);
    // What the engine does for a queued job: wake one local taker, publish for the others.
    a.notify('t|ep2');
    await redis.publish(channel, a.queuedMessage('ep2'));
    await expect(b1).resolves.toBe('woken');
    // A marker published after the wake: once replica a has delivered it, it has also seen its own copy of the wake.
    const marker = parkOn(a, 'j|ep2|marker');
    await parked(a, 2);
    await redis.publish(channel, 'j|ep2|marker');
    await expect(marker).resolves.toBe('woken');
    expect(a.parked()).toBe(1);
    // The other local taker is still parked, ready for the next job.
    a.notify('t|ep2');
    expect(await Promise.all([a1, a2])).toEqual(['woken', 'woken']);
  });

  it('tells the taker a queued-job wake from another replica woke which job it announced', async () => {
    const seen: unknown[] = [];
    const waiting = a.park({
      channel: 't|ep5',
      single: true,
      waitMs: 60_000,
      attempt: async (news) => (seen.push(news) > 1 ? news : undefined),
    });
    await parked(a, 1);
    await redis.publish(channel, b.queuedMessage('ep5', 'job-9'));
    await expect(waiting).resolves.toBe('job-9');
    expect(seen).toEqual([undefined, 'job-9']);
  });

  it('delivers queued-job wakes from another replica, and untagged ones, to one taker each', async () => {
    const a1 = parkOn(a, 't|ep3', true);
    await parked(a, 1);
    await redis.publish(channel, b.queuedMessage('ep3'));
    await expect(a1).resolves.toBe('woken');
    const a2 = parkOn(a, 't|ep3', true);
    await parked(a, 1);
    await redis.publish(channel, 't|ep3');
    await expect(a2).resolves.toBe('woken');
  });
});

describe('Wakeups reservations (hand-overs to a parked caller)', () => {
  const channel = `${testRedisPrefix('wakeups-reserve')}wake`;
  let redis: Redis;
  let wakeups: Wakeups;
  let n = 0;

  /** Parks a tagged caller whose first attempt finds nothing; its answer, and how many attempts it made. */
  function parkTagged(channelName: string, tag: string, signal?: AbortSignal) {
    let attempts = 0;
    const answer = wakeups.park({
      channel: channelName,
      single: true,
      waitMs: 60_000,
      tag,
      signal,
      attempt: async () => (++attempts > 1 ? 'looked again' : undefined),
      accept: (news) => (typeof news === 'string' ? `given ${news}` : undefined),
    });
    return { answer, attempts: () => attempts };
  }

  /** Resolves after a few event-loop turns (time for anything that would end a caller to do so). */
  const turns = async () => {
    for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
  };

  beforeAll(() => {
    redis = createRedis(REDIS_URL);
    wakeups = new Wakeups(redis, channel);
  });
  afterAll(async () => {
    await wakeups.close();
    await redis.quit();
  });

  it('sets a sleeping caller aside: wake-ups pass it by, and give answers it through accept', async () => {
    const ch = `t|r${++n}`;
    const first = parkTagged(ch, 'w1');
    const second = parkTagged(ch, 'w2');
    await parked(wakeups, 2);
    const reservation = wakeups.reserve(ch);
    expect(reservation?.tag).toBe('w1');
    // A queued-job wake goes to the caller that is still free.
    wakeups.notify(ch);
    await expect(second.answer).resolves.toBe('looked again');
    expect(wakeups.reserve(ch)).toBeUndefined();
    expect(reservation?.give('job-1')).toBe(true);
    await expect(first.answer).resolves.toBe('given job-1');
    expect(first.attempts()).toBe(1);
  });

  it('keeps a caller that hangs up while reserved until the reservation ends; give then reports it gone', async () => {
    const ch = `t|r${++n}`;
    const controller = new AbortController();
    const caller = parkTagged(ch, 'w1', controller.signal);
    await parked(wakeups, 1);
    const reservation = wakeups.reserve(ch);
    controller.abort();
    let ended = false;
    void caller.answer.then(() => (ended = true));
    await turns();
    expect(ended).toBe(false);
    expect(reservation?.give('job-2')).toBe(false);
    await expect(caller.answer).resolves.toBeUndefined();
    expect(caller.attempts()).toBe(1);
  });

  it('lets a released caller look again, and never reserves one that hung up', async () => {
    const ch = `t|r${++n}`;
    const caller = parkTagged(ch, 'w1');
    await parked(wakeups, 1);
    wakeups.reserve(ch)?.release();
    await expect(caller.answer).resolves.toBe('looked again');

    const controller = new AbortController();
    const gone = parkTagged(ch, 'w2', controller.signal);
    await parked(wakeups, 1);
    controller.abort();
    expect(wakeups.reserve(ch)).toBeUndefined();
    await expect(gone.answer).resolves.toBeUndefined();
  });
});
