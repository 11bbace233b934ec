// The "minimal pipeline" of the job API suite, run as its own process: a bare Fastify server whose POST /v2/:id/run
// parses the same body as the job-router's and does one raw BullMQ add (through @runplane/queue), with no Runplane
// code in between (no auth, no limits, no endpoint lookup). It is the fair ceiling of an HTTP job API on this machine.
import { createFastify } from '@runplane/http';
import { createQueue, createRedis } from '@runplane/queue';
import { catalog } from './catalog';

async function main(): Promise<void> {
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const queue = createQueue(catalog, 'bench-jobs', { redis, prefix: process.env.MINIMAL_PREFIX ?? 'minimal:' });
  const app = createFastify({ logger: false, bodyLimit: 10 * 1024 * 1024 });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.post<{ Body: { input?: unknown } }>('/v2/:endpointId/run', async (request, reply) => {
    const input = request.body?.input;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return reply.code(400).send({ error: 'input must be an object' });
    }
    const job = await queue.add('bench.job', { input: input as Record<string, unknown> });
    return { id: job.id, status: 'IN_QUEUE' };
  });
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
  const stop = (): void => {
    void app.close().then(async () => {
      await queue.close();
      redis.disconnect();
      process.exit(0);
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main();
