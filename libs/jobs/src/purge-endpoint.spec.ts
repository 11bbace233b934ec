import { NotFoundError } from '@runplane/contracts';
import { createRedis, type Redis } from '@runplane/queue';
import { startEngine, submission, type EngineFixture } from './__fixtures__/engine';
import { purgeEndpointJobs } from './purge-endpoint';

describe('purgeEndpointJobs', () => {
  let f: EngineFixture;
  /** The client a service has: the deployment's key prefix applied by the client (the gateway's REDIS_CLIENT). */
  let prefixed: Redis;

  beforeAll(() => {
    f = startEngine('jobs-purge');
    prefixed = createRedis('redis://127.0.0.1:6379', { keyPrefix: f.prefix });
  });
  afterAll(async () => {
    await prefixed.quit();
    await f.close();
  });

  /** Every raw key under the test prefix that belongs to an endpoint. */
  async function keysOf(endpointId: string): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await f.redis.scan(cursor, 'MATCH', `${f.prefix}*`, 'COUNT', 1000);
      found.push(...keys.filter((key) => key.includes(`jobs:${endpointId}:`)));
      cursor = next;
    } while (cursor !== '0');
    return found.sort();
  }

  /** Members of the engine's shared indexes that name the endpoint. */
  async function indexEntriesOf(endpointId: string): Promise<string[]> {
    const entries: string[] = [];
    for (const index of ['deadlines', 'expiry', 'workers', 'outbox']) {
      const members = await f.redis.zrange(`${f.prefix}jobs:${index}`, '0', '-1');
      entries.push(
        ...members.filter((member) => member.startsWith(`${endpointId}/`)).map((member) => `${index} ${member}`),
      );
    }
    if (await f.redis.sismember(`${f.prefix}jobs:endpoints`, endpointId)) entries.push(`endpoints ${endpointId}`);
    return entries;
  }

  /** Queued, low-priority, idempotent, running-with-chunks and finished jobs, a live worker and an outbox entry. */
  async function populate(endpointId: string): Promise<{ queued: string; running: string; done: string }> {
    const done = await f.engine.submit(submission(endpointId));
    await f.engine.take({ endpointId: endpointId, workerId: 'w1', count: 1, waitMs: 0 });
    await f.engine.complete(endpointId, 'w1', done.id, { output: 'ok' });
    const running = await f.engine.submit(submission(endpointId));
    await f.engine.take({ endpointId: endpointId, workerId: 'w1', count: 1, waitMs: 0 });
    await f.engine.appendStream(endpointId, 'w1', running.id, 'chunk');
    const queued = await f.engine.submit(submission(endpointId, { idempotencyKey: 'once' }));
    await f.engine.submit(
      submission(endpointId, { policy: { executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: true } }),
    );
    await f.engine.heartbeat(endpointId, 'w1', [running.id]);
    // A finished job's webhook not relayed yet (its process died first): what the next sweep would pick up.
    await f.redis.zadd(`${f.prefix}jobs:outbox`, 0, `${endpointId}/${done.id}`);
    return { queued: queued.id, running: running.id, done: done.id };
  }

  it("removes the endpoint's queue, jobs, chunks, idempotency keys, counters and index entries, and nothing else", async () => {
    // A glob character in the id must not widen the purge to another endpoint ("ep*" would match "ep-kept").
    const doomed = 'ep*';
    const kept = 'ep-kept';
    const jobs = await populate(doomed);
    const keptJobs = await populate(kept);
    const keptKeys = await keysOf(kept);
    expect(await keysOf(doomed)).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`jobs:${doomed}:job:${jobs.running}`),
        expect.stringContaining(`jobs:${doomed}:stats`),
        expect.stringContaining(`jobs:${doomed}:idem:`),
        expect.stringContaining(`jobs:${doomed}:queued`),
      ]),
    );
    expect(await indexEntriesOf(doomed)).toEqual(
      expect.arrayContaining([`outbox ${doomed}/${jobs.done}`, `endpoints ${doomed}`]),
    );

    await purgeEndpointJobs(prefixed, doomed);

    expect(await keysOf(doomed)).toEqual([]);
    expect(await indexEntriesOf(doomed)).toEqual([]);
    for (const id of Object.values(jobs)) await expect(f.engine.get(doomed, id)).rejects.toThrow(NotFoundError);
    // The worker that held a job hears 404 for it; no one is handed the queued ones.
    await expect(f.engine.complete(doomed, 'w1', jobs.running, { output: 'late' })).rejects.toThrow(NotFoundError);
    expect(await f.engine.take({ endpointId: doomed, workerId: 'w2', count: 5, waitMs: 0 })).toEqual([]);

    expect(await keysOf(kept)).toEqual(expect.arrayContaining(keptKeys.filter((key) => !key.includes(':worker'))));
    expect(await f.engine.get(kept, keptJobs.running)).toMatchObject({ status: 'IN_PROGRESS' });
    expect(
      (await f.engine.take({ endpointId: kept, workerId: 'w3', count: 5, waitMs: 0 })).map((job) => job.id),
    ).toContain(keptJobs.queued);
  });

  it('is idempotent, and the time rules leave a purged endpoint alone', async () => {
    const doomed = 'ep-twice';
    await populate(doomed);
    await purgeEndpointJobs(prefixed, doomed);
    await purgeEndpointJobs(prefixed, doomed);
    // Past every ttl, timeout and heartbeat: the sweep finds nothing of it to finish or re-create.
    f.clock.advance(2 * 86_400_000);
    await f.engine.sweep();
    expect(await keysOf(doomed)).toEqual([]);
    expect(await indexEntriesOf(doomed)).toEqual([]);
  });
});
