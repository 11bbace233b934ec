import { JobScalingReader } from './scaling-reader';
import { type EngineFixture, startEngine, submission } from './__fixtures__/engine';

const LOW = { executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: true };

/**
 * The autoscaler's view of the engine's keys, read for many endpoints at once: queued jobs with and without the
 * lowPriority ones, the queue time of the oldest job that may scale up, running jobs, and each worker's last ping and
 * held jobs; an endpoint the engine never saw reads as empty.
 */
describe('JobScalingReader', () => {
  let f: EngineFixture;
  let reader: JobScalingReader;

  beforeAll(() => {
    f = startEngine('jobs-scaling-reader');
    reader = new JobScalingReader(f.redis, f.prefix);
  });
  afterAll(() => f.close());
  afterEach(() => expect(f.errors).toEqual([]));

  it('reads each endpoint of a batch as its own view', async () => {
    await f.engine.submit(submission('busy'));
    const firstQueuedAt = f.clock.now();
    f.clock.advance(1000);
    await f.engine.submit(submission('busy'));
    const [taken] = await f.engine.take({ endpointId: 'busy', workerId: 'w1', count: 1, waitMs: 0 });
    await f.engine.heartbeat('busy', 'w2');
    await f.engine.submit(submission('low', { policy: LOW }));
    f.clock.advance(1000);
    await f.engine.submit(submission('low'));
    const lowNormalAt = f.clock.now();
    await f.engine.heartbeat('pinged', 'w3');

    const views = await reader.views(['busy', 'low', 'never', 'pinged']);

    expect(taken).toBeDefined();
    expect(views.get('busy')).toMatchObject({ queued: 1, scalingQueued: 1, inProgress: 1 });
    expect(views.get('busy')?.oldestScalingQueuedAt).toBe(firstQueuedAt + 1000);
    expect([...(views.get('busy')?.workers ?? [])].sort()).toEqual([
      ['w1', { lastSeenAt: firstQueuedAt + 1000, jobs: 1 }],
      ['w2', { lastSeenAt: firstQueuedAt + 1000, jobs: 0 }],
    ]);
    expect(views.get('low')).toMatchObject({ queued: 2, scalingQueued: 1, oldestScalingQueuedAt: lowNormalAt });
    expect(views.get('never')).toEqual({
      queued: 0,
      scalingQueued: 0,
      oldestScalingQueuedAt: null,
      inProgress: 0,
      workers: new Map(),
    });
    // Nothing queued or running, but a worker heard from: not an idle endpoint.
    expect(views.get('pinged')).toMatchObject({ queued: 0, inProgress: 0 });
    expect([...(views.get('pinged')?.workers.keys() ?? [])]).toEqual(['w3']);
    expect(await reader.view('low')).toEqual(views.get('low'));
  });

  it('reads only lowPriority jobs as queued without one that may scale up', async () => {
    await f.engine.submit(submission('only-low', { policy: LOW }));
    expect(await reader.view('only-low')).toMatchObject({ queued: 1, scalingQueued: 0, oldestScalingQueuedAt: null });
  });

  it('reads a pass of more endpoints than one script call takes, each view with its own endpoint', async () => {
    // 1,201 endpoints: three script calls, sent at once. Every 100th has as many jobs as its index / 100 + 1.
    const endpointIds = Array.from({ length: 1201 }, (_, index) => `many-${index}`);
    const busy = endpointIds.filter((_, index) => index % 100 === 0);
    for (const [rank, endpointId] of busy.entries())
      for (let job = 0; job <= rank; job += 1) await f.engine.submit(submission(endpointId));

    const views = await reader.views(endpointIds);

    expect(views.size).toBe(endpointIds.length);
    endpointIds.forEach((endpointId, index) => {
      const queued = index % 100 === 0 ? index / 100 + 1 : 0;
      expect([endpointId, views.get(endpointId)?.queued]).toEqual([endpointId, queued]);
    });
  });
});
