import { bullPrefix } from '@runplane/queue';
import { startEngine, submission, type EngineFixture } from './__fixtures__/engine';
import { PURGE_BATCH } from './purge-queue';

describe('RedisJobEngine.purgeQueue across batches', () => {
  let f: EngineFixture;
  let n = 0;
  const endpoint = () => `pq${++n}`;

  beforeAll(() => {
    f = startEngine('jobs-purge-queue');
  });
  afterAll(() => f.close());

  /** Queues `count` jobs (every 7th with a webhook, every 5th low priority) behind one running job, then purges. */
  async function purgeScenario(count: number) {
    const ep = endpoint();
    const running = await f.engine.submit(submission(ep));
    expect(await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 })).toHaveLength(1);
    const queued: { id: string; webhook: boolean }[] = [];
    for (let i = 0; i < count; i += 100) {
      const page = await Promise.all(
        Array.from({ length: Math.min(100, count - i) }, (_, j) => {
          const webhook = (i + j) % 7 === 0;
          const policy = { executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: (i + j) % 5 === 0 };
          return f.engine.submit(submission(ep, { policy, ...(webhook ? { webhook: 'https://example.com/h' } : {}) }));
        }),
      );
      page.forEach((run, j) => queued.push({ id: run.id, webhook: (i + j) % 7 === 0 }));
    }
    const purged = await f.engine.purgeQueue(ep);
    return { ep, running: running.id, queued, purged };
  }

  /** Everything a purge leaves behind, in a form that does not depend on how many jobs were purged. */
  async function endState(s: Awaited<ReturnType<typeof purgeScenario>>) {
    const statuses = new Set<string>();
    const webhooksQueued = new Set<boolean>();
    for (const job of s.queued) {
      const hash = await f.redis.hgetall(f.keys.job(s.ep, job.id));
      statuses.add(hash['status'] ?? 'missing');
      const delivery = await f.redis.exists(`${bullPrefix(f.prefix)}:webhooks:${job.id}-${hash['doneAt']}`);
      webhooksQueued.add(delivery === 1 ? job.webhook : !job.webhook);
    }
    const events = await f.redis.xrange(f.keys.events, '-', '+');
    const cancelledEvents = events.filter(([, fields]) => {
      const at = (name: string) => fields[fields.indexOf(name) + 1];
      return at('type') === 'job.finished' && at('endpointId') === s.ep && at('status') === 'CANCELLED';
    }).length;
    return {
      purgedAll: s.purged === s.queued.length,
      statuses: [...statuses],
      webhooksQueuedExactlyForWebhookJobs: [...webhooksQueued],
      cancelledEventPerJob: cancelledEvents === s.queued.length,
      outbox: await f.redis.zcard(f.keys.outbox),
      queueLength: (await f.queued(s.ep)).length,
      taken: await f.engine.take({ endpointId: s.ep, workerId: 'w2', count: 5, waitMs: 0 }),
      counts: await f.engine.counts(s.ep),
      running: (await f.engine.get(s.ep, s.running)).status,
      scalingQueue: await f.engine.scalingQueue(s.ep),
    };
  }

  it('leaves the same end state for more jobs than one batch as for a few', async () => {
    const small = await endState(await purgeScenario(3));
    const large = await purgeScenario(2 * PURGE_BATCH + 37);
    expect(large.purged).toBe(2 * PURGE_BATCH + 37);
    expect(await endState(large)).toEqual(small);
    expect(small).toEqual({
      purgedAll: true,
      statuses: ['CANCELLED'],
      webhooksQueuedExactlyForWebhookJobs: [true],
      cancelledEventPerJob: true,
      outbox: 0,
      queueLength: 0,
      taken: [],
      counts: { completed: 0, failed: 0, inProgress: 1, inQueue: 0, retried: 0 },
      running: 'IN_PROGRESS',
      scalingQueue: 0,
    });
    expect(f.errors).toEqual([]);
  }, 120_000);

  it('purges nothing on an empty queue, and a second purge finds nothing left', async () => {
    const s = await purgeScenario(PURGE_BATCH + 1);
    expect(s.purged).toBe(PURGE_BATCH + 1);
    expect(await f.engine.purgeQueue(s.ep)).toBe(0);
    expect(await f.engine.purgeQueue(endpoint())).toBe(0);
  }, 120_000);
});
