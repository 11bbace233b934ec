// A worker whose process keeps exiting is marked unhealthy (with the reason, for /health) and replaced with backoff.
import { WorkerStateStore } from '@runplane/endpoints';
import { createRedis } from '@runplane/queue';
import { pollUntil } from '@runplane/testing';
import { type PlatformHarness, startPlatform } from './harness';

describe('crash-looping workers', () => {
  let p: PlatformHarness;

  beforeAll(async () => {
    p = await startPlatform('sched-crash');
  }, 180_000);

  afterAll(async () => {
    await p?.close();
  }, 60_000);

  it('marks a dying worker unhealthy, replaces it, and backs off between replacements', async () => {
    const template = await p.v1('POST', '/templates', {
      name: 'crasher',
      imageName: 'runplane/crasher:1',
      isServerless: true,
      dockerEntrypoint: ['node'],
      dockerStartCmd: ['-e', 'process.exit(3)'],
    });
    const endpoint = await p.v1('POST', '/endpoints', {
      name: 'crashing',
      templateId: (template.body as { id: string }).id,
      gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
      workersMin: 1,
      workersMax: 1,
    });
    const endpointId = (endpoint.body as { id: string }).id;
    const redis = createRedis('redis://127.0.0.1:6379', { keyPrefix: p.prefix });
    const states = new WorkerStateStore(redis);
    try {
      // Each failure removes the worker and a new one (a new Pod id, a new token) replaces it.
      const replaced = await pollUntil(
        async () => {
          const issued = await p.db.workerToken.findMany({ where: { endpointId }, distinct: ['workerId'] });
          return issued.length >= 3 ? issued : undefined;
        },
        { timeoutMs: 30_000, description: 'three workers in turn' },
      );
      expect(await p.db.workerToken.count({ where: { endpointId, workerId: { in: replaced.slice(0, 2).map((t) => t.workerId) }, revokedAt: null } })).toBe(0);
      const published = await pollUntil(
        async () => {
          const read = await states.read(endpointId);
          return read.counts.unhealthy >= 2 && read.counts.throttled === 1 ? read : undefined;
        },
        { timeoutMs: 20_000, description: 'unhealthy workers and a backoff to be published' },
      );
      expect(published.workers.filter((w) => w.state === 'unhealthy').every((w) => w.reason === 'Exit code 3')).toBe(true);
      expect(published.workers.find((w) => w.state === 'throttled')?.reason).toMatch(/^Waiting to replace a crashed worker \(\d+ in a row\): Exit code 3$/);
    } finally {
      redis.disconnect();
    }
  }, 90_000);
});
