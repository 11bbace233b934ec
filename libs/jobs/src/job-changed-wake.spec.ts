import { pollUntil } from '@runplane/testing';
import type { RedisJobEngine } from './redis-job-engine';
import { submission, twoReplicas, type EngineFixture, type WakeRecorder } from './__fixtures__/engine';

/**
 * The job-changed wake (`j|<ep>|<id>`) is published only when a caller may be waiting for it: always for a /runsync
 * job, for any other while a /status-sync or /stream caller of the endpoint waits. Two engines on one prefix play two
 * job-router replicas: the waiter is on the other one, so only the published wake can reach it.
 */
describe('RedisJobEngine: job-changed wakes', () => {
  let f: EngineFixture;
  let other: RedisJobEngine;
  let n = 0;
  const endpoint = () => `ep${++n}`;
  let wakes: WakeRecorder;

  const replicas = twoReplicas('jobs-changed-wake');
  beforeAll(() => {
    ({ f, other, wakes } = replicas);
  });

  /** The job-changed wakes published so far (none still on its way). */
  const wakesSoFar = async () => (await wakes.settled()).filter((message) => message.startsWith('j|'));

  /** A job of `ep` taken by worker w1: its id. */
  async function running(ep: string, sync = false): Promise<string> {
    const { id } = await f.engine.submit(submission(ep, { sync }));
    expect((await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 })).map((job) => job.id)).toEqual(
      [id],
    );
    return id;
  }

  it('publishes nothing when a /run job changes and no caller of its endpoint waits', async () => {
    const ep = endpoint();
    const id = await running(ep);
    await f.engine.appendStream(ep, 'w1', id, 'chunk');
    await f.engine.complete(ep, 'w1', id, { status: 'IN_PROGRESS', output: 'half' });
    await f.engine.complete(ep, 'w1', id, { output: 'done' });
    expect(await wakesSoFar()).toEqual([]);
    expect(await f.engine.get(ep, id)).toMatchObject({ status: 'COMPLETED', output: 'done' });
  });

  it('always publishes the changes of a /runsync job, whose caller waits', async () => {
    const ep = endpoint();
    const id = await running(ep, true);
    await f.engine.complete(ep, 'w1', id, { output: 'done' });
    expect(await wakesSoFar()).toEqual([`j|${ep}|${id}`]);
  });

  it('wakes a /status-sync caller on another replica at once: its wait marks the endpoint', async () => {
    const ep = endpoint();
    const id = await running(ep);
    const waiting = other.waitFor(ep, id, 60_000);
    await pollUntil(async () => (await f.redis.exists(f.keys.endpoint(ep, 'watched'))) === 1, {
      description: 'the endpoint to be marked',
    });
    const ttl = await f.redis.pttl(f.keys.endpoint(ep, 'watched'));
    expect(ttl).toBeGreaterThan(60_000);
    await f.engine.complete(ep, 'w1', id, { output: 'done' });
    // Long before its 60 s wait runs out.
    expect(await waiting).toMatchObject({ id, status: 'COMPLETED', output: 'done' });
    expect(await wakesSoFar()).toEqual([`j|${ep}|${id}`]);
  });

  it('marks nothing for a wait on a finished or a missing job, which answers at once', async () => {
    const ep = endpoint();
    const id = await running(ep);
    await f.engine.complete(ep, 'w1', id, { output: 'done' });
    expect(await other.waitFor(ep, id, 60_000)).toMatchObject({ status: 'COMPLETED' });
    expect(await other.readStream(ep, id, 60_000)).toMatchObject({ status: 'COMPLETED', stream: [] });
    await expect(other.waitFor(ep, 'no-such-job', 60_000)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await f.redis.exists(f.keys.endpoint(ep, 'watched'))).toBe(0);
  });

  it('wakes a /stream caller on another replica with each chunk, and only raises the mark’s expiry', async () => {
    const ep = endpoint();
    const id = await running(ep);
    const queued = await f.engine.submit(submission(ep));
    const long = other.waitFor(ep, queued.id, 120_000);
    await pollUntil(async () => other.parked() === 1, { description: 'the long wait to park' });
    const reading = other.readStream(ep, id, 30_000);
    await pollUntil(async () => other.parked() === 2, { description: 'both callers to park' });
    // The shorter wait left the longer one's expiry as it was.
    expect(await f.redis.pttl(f.keys.endpoint(ep, 'watched'))).toBeGreaterThan(120_000);
    await f.engine.appendStream(ep, 'w1', id, 'first');
    expect(await reading).toEqual({ status: 'IN_PROGRESS', stream: [{ output: 'first' }] });
    await f.engine.cancel(ep, queued.id);
    expect(await long).toMatchObject({ id: queued.id, status: 'CANCELLED' });
  });
});
