// A worker whose process keeps exiting is marked unhealthy (with the reason, for /health) and replaced with backoff;
// so is one that reports a failed fitness check before it exits, as RunPod's worker SDK does, with the reason it gave.
import { WorkerStateStore } from '@runplane/endpoints';
import { createRedis } from '@runplane/queue';
import { pollUntil } from '@runplane/testing';
import { type PlatformHarness, startPlatform } from './harness';

describe('crash-looping workers', () => {
  let p: PlatformHarness;

  beforeAll(async () => {
    p = await startPlatform('sched-crash', { jobRouter: true });
  }, 180_000);

  afterAll(async () => {
    await p?.close();
  }, 60_000);

  /** An endpoint of one worker that runs `script` with node. */
  async function endpointRunning(name: string, script: string): Promise<string> {
    const template = await p.v1('POST', '/templates', {
      name,
      imageName: `runplane/${name}:1`,
      isServerless: true,
      dockerEntrypoint: ['node'],
      dockerStartCmd: ['-e', script],
    });
    const endpoint = await p.v1('POST', '/endpoints', {
      name,
      templateId: (template.body as { id: string }).id,
      gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
      workersMin: 1,
      workersMax: 1,
    });
    return (endpoint.body as { id: string }).id;
  }

  it('marks a dying worker unhealthy, replaces it, and backs off between replacements', async () => {
    const endpointId = await endpointRunning('crasher', 'process.exit(3)');
    const redis = createRedis('redis://127.0.0.1:6379', { keyPrefix: p.prefix });
    const states = new WorkerStateStore(redis);
    try {
      // Each failure removes the worker and a new one (a new Pod id, a new token) replaces it.
      const replaced = await pollUntil(
        async () => {
          const issued = await p.db.workerToken.findMany({ where: { endpointId }, orderBy: { createdAt: 'asc' } });
          // The workers in the order they came: a distinct read has no order of its own.
          const workers = [...new Set(issued.map((token) => token.workerId))];
          return workers.length >= 3 ? workers : undefined;
        },
        { timeoutMs: 30_000, description: 'three workers in turn' },
      );
      expect(
        await p.db.workerToken.count({
          where: { endpointId, workerId: { in: replaced.slice(0, 2) }, revokedAt: null },
        }),
      ).toBe(0);
      const published = await pollUntil(
        async () => {
          const read = await states.read(endpointId);
          return read.counts.unhealthy >= 2 && read.counts.throttled === 1 ? read : undefined;
        },
        { timeoutMs: 20_000, description: 'unhealthy workers and a backoff to be published' },
      );
      expect(published.workers.filter((w) => w.state === 'unhealthy').every((w) => w.reason === 'Exit code 3')).toBe(
        true,
      );
      expect(published.workers.find((w) => w.state === 'throttled')?.reason).toMatch(
        /^Waiting to replace a crashed worker \(\d+ in a row\): Exit code 3$/,
      );
    } finally {
      redis.disconnect();
    }
  }, 90_000);

  it('marks a worker that reports a failed fitness check unhealthy with the reason it gave, and replaces it', async () => {
    // What runpod-python does when a fitness check fails: one ping with status=unhealthy, then exit 1.
    const reportAndExit = [
      "const reason = encodeURIComponent('RuntimeError: no CUDA device');",
      'const url = `${process.env.RUNPOD_WEBHOOK_PING}&status=unhealthy&check=gpu_present&reason=${reason}`;',
      'fetch(url, { headers: { authorization: process.env.RUNPOD_AI_API_KEY } }).finally(() => process.exit(1));',
    ].join('\n');
    const endpointId = await endpointRunning('unfit', reportAndExit);
    const redis = createRedis('redis://127.0.0.1:6379', { keyPrefix: p.prefix });
    const states = new WorkerStateStore(redis);
    try {
      const published = await pollUntil(
        async () => {
          const read = await states.read(endpointId);
          return read.counts.unhealthy >= 2 && read.counts.throttled === 1 ? read : undefined;
        },
        { timeoutMs: 30_000, description: 'unhealthy workers and a backoff to be published' },
      );
      // Whether its report or its exit was seen first, the reason it gave leads.
      const given = 'Fitness check gpu_present failed: RuntimeError: no CUDA device';
      const unhealthy = published.workers.filter((w) => w.state === 'unhealthy');
      expect(unhealthy.map((w) => w.reason?.startsWith(given))).toEqual(unhealthy.map(() => true));
      expect(published.workers.find((w) => w.state === 'throttled')?.reason).toContain(given);
      // Each was removed and replaced: its token is revoked.
      const issued = await p.db.workerToken.findMany({
        where: { endpointId, workerId: { in: unhealthy.map((w) => w.workerId) } },
      });
      expect(issued.map((token) => token.revokedAt !== null)).toEqual(unhealthy.map(() => true));
    } finally {
      redis.disconnect();
    }
  }, 90_000);
});
