import { pollUntil } from '@runplane/testing';
import { HAND_OFF_MAX_CHARS } from './dispatch';
import { SCRIPTS } from './engine-scripts';
import { parseTakerEntry } from './protocol';
import { RedisJobEngine } from './redis-job-engine';
import {
  originOf,
  parkedOn,
  submission,
  twoReplicas,
  type EngineFixture,
  type WakeRecorder,
} from './__fixtures__/engine';

/**
 * How a queued job reaches a parked take: handed over by the replica that queued it, or claimed by id by a taker of
 * another replica woken with the job's id. Two engines on one prefix play two job-router replicas.
 */
describe('RedisJobEngine: dispatch to parked takes', () => {
  let f: EngineFixture;
  /** A second replica on the same keys. */
  let other: RedisJobEngine;
  let n = 0;
  const endpoint = () => `ep${++n}`;

  /** Messages published on the wake channel and the replicas' hand-off channels since the test began. */
  let wakes: WakeRecorder;
  const published = () => wakes.messages();
  const takersKey = (endpointId: string) => f.keys.endpoint(endpointId, 'takers');
  const takers = (endpointId: string) => f.redis.lrange(takersKey(endpointId), 0, -1);
  const otherOrigin = () => originOf(other);
  /** Whether the job is in its endpoint's queue. */
  const isQueued = async (endpointId: string, jobId: string) => (await f.queued(endpointId)).includes(jobId);

  const replicas = twoReplicas('jobs-dispatch');
  beforeAll(() => {
    ({ f, other, wakes } = replicas);
  });

  it('hands a job to a take parked on the same replica: claimed at submission, out of the queue', async () => {
    const ep = endpoint();
    const take = f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 60_000 });
    await parkedOn(f.engine, 1);
    f.clock.advance(5);
    const claims = jest.spyOn(SCRIPTS.claim, 'run');
    const run = await f.engine.submit(submission(ep, { extra: { s3Config: { bucketName: 'b' } } }));
    // Claimed for the parked worker before the submission answers, by the script that recorded it.
    expect(await f.engine.get(ep, run.id)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'w1' });
    expect(claims).not.toHaveBeenCalled();
    claims.mockRestore();
    expect(await take).toEqual([{ id: run.id, input: { prompt: 'hello' }, s3Config: { bucketName: 'b' } }]);
    expect(await f.engine.get(ep, run.id)).toMatchObject({
      status: 'IN_PROGRESS',
      workerId: 'w1',
      delayTime: 0,
      retries: 0,
    });
    expect(await isQueued(ep, run.id)).toBe(false);
    expect(await f.engine.counts(ep)).toMatchObject({ inQueue: 0, inProgress: 1 });
    expect(await other.take({ endpointId: ep, workerId: 'w2', count: 1, waitMs: 0 })).toEqual([]);
    // The take's registration goes with it.
    await pollUntil(async () => (await takers(ep)).length === 0, { intervalMs: 1, description: 'the entry removed' });
  });

  it('queues the job again, untouched, when the take hangs up while it is being handed over', async () => {
    const ep = endpoint();
    const hangUp = new AbortController();
    const take = f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 60_000, signal: hangUp.signal });
    await parkedOn(f.engine, 1);
    // The take is reserved as the submission starts; it hangs up before the claim's answer is back.
    const submitting = f.engine.submit(submission(ep));
    hangUp.abort();
    const run = await submitting;
    expect(await take).toEqual([]);
    expect(await f.engine.get(ep, run.id)).toEqual({ id: run.id, status: 'IN_QUEUE', retries: 0 });
    expect(await isQueued(ep, run.id)).toBe(true);
    expect((await other.take({ endpointId: ep, workerId: 'w2', count: 1, waitMs: 0 })).map((job) => job.id)).toEqual([
      run.id,
    ]);
    expect(await f.engine.get(ep, run.id)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'w2', retries: 0 });
  });

  it('hands a job to a take registered by another replica: claimed by its record script, answered from the message', async () => {
    const ep = endpoint();
    const take = other.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 60_000 });
    await parkedOn(other, 1);
    await pollUntil(async () => (await takers(ep)).length === 1, {
      intervalMs: 1,
      description: 'the take to register',
    });
    const removals = jest.spyOn(f.redis, 'lrem');
    const run = await f.engine.submit(submission(ep, { extra: { s3Config: { bucketName: 'b' } } }));
    // Claimed before the submission answers.
    expect(await f.engine.get(ep, run.id)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'w1' });
    expect(await take).toEqual([{ id: run.id, input: { prompt: 'hello' }, s3Config: { bucketName: 'b' } }]);
    // The script popped the take's entry: the take, once answered, sends no removal (a scan of the takes registered).
    expect(removals).not.toHaveBeenCalled();
    removals.mockRestore();
    // The recorder hears the hand-off on a connection of its own, which the engine may read after the take's replica.
    const handOffs = () => published().filter((message) => message.startsWith('h|'));
    await pollUntil(() => handOffs().length > 0, { intervalMs: 1, description: 'the hand-off to be recorded' });
    expect(handOffs()).toHaveLength(1);
    expect(published().filter((message) => message.startsWith('t|'))).toEqual([]);
    expect(await takers(ep)).toEqual([]);
    expect(await isQueued(ep, run.id)).toBe(false);
    expect(await f.engine.take({ endpointId: ep, workerId: 'w2', count: 1, waitMs: 0 })).toEqual([]);
  });

  it('queues a handed-off job again, untouched, when its take is gone', async () => {
    const ep = endpoint();
    // A take of the other replica that ended without its registration being removed (e.g. it is being removed now).
    await f.redis.rpush(takersKey(ep), `${otherOrigin()}|no-such-take|${f.clock.now() + 60_000}|w1`);
    const run = await f.engine.submit(submission(ep));
    await pollUntil(async () => (await f.engine.get(ep, run.id)).status === 'IN_QUEUE', {
      description: 'the claim to be undone',
    });
    expect(await f.engine.get(ep, run.id)).toEqual({ id: run.id, status: 'IN_QUEUE', retries: 0 });
    expect((await other.take({ endpointId: ep, workerId: 'w2', count: 1, waitMs: 0 })).map((job) => job.id)).toEqual([
      run.id,
    ]);
    expect(await f.engine.get(ep, run.id)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'w2', retries: 0 });
  });

  it('reports a hand-off message it cannot read and queues its job again', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep));
    expect((await other.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 })).map((job) => job.id)).toEqual([
      run.id,
    ]);
    await f.redis.publish(f.keys.wakeChannel, `h|${otherOrigin()}|some-take|${ep}|${run.id}|w1\nnot json\n{}`);
    await pollUntil(async () => (await f.engine.get(ep, run.id)).status === 'IN_QUEUE', {
      description: 'the claim to be undone',
    });
    expect(f.errors.splice(0).map((error) => error.name)).toEqual(['SyntaxError']);
    expect((await f.engine.take({ endpointId: ep, workerId: 'w2', count: 1, waitMs: 0 })).map((job) => job.id)).toEqual(
      [run.id],
    );
  });

  it('skips expired registrations, and hands off no job too large for the message (announced instead)', async () => {
    const ep = endpoint();
    await f.redis.rpush(takersKey(ep), `${otherOrigin()}|old-take|${f.clock.now() - 1}|w0`);
    const expired = await f.engine.submit(submission(ep));
    expect(await f.engine.get(ep, expired.id)).toEqual({ id: expired.id, status: 'IN_QUEUE', retries: 0 });
    expect(await takers(ep)).toEqual([]);
    expect((await other.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 })).map((job) => job.id)).toEqual([
      expired.id,
    ]);

    const take = other.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 60_000 });
    await pollUntil(async () => (await takers(ep)).length === 1, {
      intervalMs: 1,
      description: 'the take to register',
    });
    wakes.clear();
    const large = await f.engine.submit(submission(ep, { input: { text: 'x'.repeat(HAND_OFF_MAX_CHARS) } }));
    expect((await take).map((job) => job.id)).toEqual([large.id]);
    expect(published().filter((message) => message.startsWith('h|'))).toEqual([]);
    expect(published().filter((message) => message.startsWith('t|'))).toHaveLength(1);
  });

  it('claims the job a wake names by its id, without looking at the queue', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep));
    // Out of the queue, so only the claim by id can give it out.
    await f.redis.zrem(f.keys.endpoint(ep, 'queued'), run.id);
    const take = other.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 5_000 });
    await parkedOn(other, 1);
    await f.wakeFromAnotherReplica(ep, run.id);
    expect((await take).map((job) => job.id)).toEqual([run.id]);
    expect(await f.engine.get(ep, run.id)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'w1' });
  });

  it('hands out queued jobs oldest first, those queued in one millisecond in the order they were queued', async () => {
    const ep = endpoint();
    // The fake clock stands still: every job is queued in the same millisecond.
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) ids.push((await f.engine.submit(submission(ep, { input: { n: i } }))).id);
    expect(await f.queued(ep)).toEqual(ids);
    const taken = await other.take({ endpointId: ep, workerId: 'w1', count: 5, waitMs: 0 });
    expect(taken.map((job) => job.input)).toEqual([0, 1, 2, 3, 4].map((n) => ({ n })));
    expect(await f.queued(ep)).toEqual(ids.slice(5));
    f.clock.advance(1);
    const later = await f.engine.submit(submission(ep));
    const rest = await f.engine.take({ endpointId: ep, workerId: 'w2', count: 20, waitMs: 0 });
    expect(rest.map((job) => job.id)).toEqual([...ids.slice(5), later.id]);
  });

  it('hands every job out exactly once when both replicas submit and take at once', async () => {
    const ep = endpoint();
    const total = 1000;
    const takenBy = new Map<string, string[]>();
    let submitted = 0;
    const stop = new AbortController();
    // Ten takers per replica, each taking one job at a time and finishing it, as single-slot workers do.
    const takers = [f.engine, other].flatMap((engine, replica) =>
      Array.from({ length: 10 }, async (_, i) => {
        const workerId = `r${replica}w${i}`;
        while (!stop.signal.aborted) {
          for (const job of await engine.take({
            endpointId: ep,
            workerId: workerId,
            count: 1,
            waitMs: 1_000,
            signal: stop.signal,
          })) {
            takenBy.set(job.id, [...(takenBy.get(job.id) ?? []), workerId]);
            await engine.complete(ep, workerId, job.id, { output: job.input });
          }
        }
      }),
    );
    const ids: string[] = [];
    // Four submitters, two per replica: slower than twenty takers, so most jobs find a take parked on one replica or
    // the other (hand-overs and claims by id), and some a queue with jobs in it.
    await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const engine = i % 2 === 0 ? f.engine : other;
        while (submitted < total) {
          submitted += 1;
          ids.push((await engine.submit(submission(ep, { input: { n: submitted } }))).id);
        }
      }),
    );
    await pollUntil(async () => (await f.engine.counts(ep)).completed === total, {
      timeoutMs: 30_000,
      description: 'every job completed',
    });
    stop.abort();
    await Promise.all(takers);
    expect(ids).toHaveLength(total);
    expect([...takenBy.keys()].sort()).toEqual([...ids].sort());
    expect([...takenBy.values()].filter((workers) => workers.length > 1)).toEqual([]);
    expect(await f.engine.counts(ep)).toMatchObject({ inQueue: 0, inProgress: 0, completed: total });
    expect(await f.engine.take({ endpointId: ep, workerId: 'late', count: 1, waitMs: 0 })).toEqual([]);
    expect(await f.queued(ep)).toEqual([]);
  });

  it('still dispatches through the queue when no take is parked, and announces the job to no one', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep));
    expect(await isQueued(ep, run.id)).toBe(true);
    // The record script published nothing: no take was registered to hear it (a marker published after it arrived).
    expect(await wakes.settled()).toEqual([]);
    expect((await other.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 })).map((job) => job.id)).toEqual([
      run.id,
    ]);
    expect(await isQueued(ep, run.id)).toBe(false);
  });

  it('registers a take in the same script as the look that finds the queue empty, once, and not when it takes a job', async () => {
    const ep = endpoint();
    const base = { base: f.keys.base, endpointId: ep, workerId: 'w1', now: f.clock.now(), count: 1 };
    const entry = (take: string) => `${otherOrigin()}|${take}|${f.clock.now() + 60_000}|w1`;
    const registration = (take: string, again: boolean) => ({ entry: entry(take), again, ttlMs: 90_000 });
    expect(await SCRIPTS.take.run(f.redis, { ...base, registration: registration('a', false) })).toEqual([]);
    expect(await SCRIPTS.take.run(f.redis, { ...base, registration: registration('b', false) })).toEqual([]);
    expect(await takers(ep)).toEqual([entry('a'), entry('b')]);
    expect(await f.redis.pttl(takersKey(ep))).toBeGreaterThan(60_000);
    // A take that looks again is registered once, behind the takes that registered since.
    expect(await SCRIPTS.take.run(f.redis, { ...base, registration: registration('a', true) })).toEqual([]);
    expect(await takers(ep)).toEqual([entry('b'), entry('a')]);
    // A take that does not wait is not registered; one that finds a job is not either.
    expect(await SCRIPTS.take.run(f.redis, base)).toEqual([]);
    const run = await f.engine.submit(submission(ep, { input: { n: 1 } }));
    // The submission was handed to the oldest registered take ('b', of the other replica, which does not know it).
    await pollUntil(async () => (await f.engine.get(ep, run.id)).status === 'IN_QUEUE', {
      description: 'the hand-off to an unknown take to be undone',
    });
    expect(await takers(ep)).toEqual([entry('a')]);
    const taken = await SCRIPTS.take.run(f.redis, { ...base, registration: registration('c', false) });
    expect(taken).toEqual([run.id, JSON.stringify({ n: 1 }), expect.any(String), expect.any(String)]);
    expect(await takers(ep)).toEqual([entry('a')]);
  });

  it('a parked take whose hand-off went wrong looks again and is registered again', async () => {
    const ep = endpoint();
    const take = other.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 60_000 });
    await parkedOn(other, 1);
    const [registered = ''] = await takers(ep);
    const takeId = parseTakerEntry(registered)?.takeId;
    // A submission took the entry off the list and its hand-off message cannot be read: the take is registered no more.
    expect(await f.redis.lpop(takersKey(ep))).toBe(registered);
    await f.redis.publish(f.keys.wakeChannel, `h|${otherOrigin()}|${takeId}|${ep}|no-such-job|w1\nnot json\n{}`);
    await pollUntil(async () => (await takers(ep)).length === 1, { description: 'the take to register again' });
    expect(f.errors.splice(0).map((error) => error.name)).toEqual(['SyntaxError']);
    expect(await takers(ep)).toEqual([registered]);
    const run = await f.engine.submit(submission(ep, { input: { n: 2 } }));
    expect((await take).map((job) => job.id)).toEqual([run.id]);
    expect(await takers(ep)).toEqual([]);
  });

  it('closing a replica ends its parked take and removes its registration before the connections go', async () => {
    const ep = endpoint();
    const errors: Error[] = [];
    const onError = (error: Error) => errors.push(error);
    const closing = new RedisJobEngine({
      queueOrdered: f.redis,
      prefix: f.prefix,
      region: 'u1',
      clock: f.clock,
      onError,
    });
    const take = closing.take({ endpointId: ep, workerId: 'w-closing', count: 1, waitMs: 60_000 });
    await parkedOn(closing, 1);
    expect(await takers(ep)).toHaveLength(1);
    await closing.close();
    expect(await take).toEqual([]);
    expect(await takers(ep)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
