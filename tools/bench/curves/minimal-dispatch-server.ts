// The workers curve's dispatch floor, run as its own process: a bare Fastify server whose GET /take parks until a job
// is published on one Redis channel, and then answers the oldest parked take with that job. No Runplane code: the same
// three processes a Runplane dispatch crosses (the benchmark, Redis, a server holding the takes) and the same hops,
// nothing else.
import { createFastify } from '@runplane/http';
import { createRedis } from '@runplane/queue';

/** How long a take stays parked before it ends empty (204) and its client takes again (the job-router's default). */
const WAIT_MS = Number(process.env.MINIMAL_TAKE_WAIT_MS ?? 30_000);

interface ParkedTake {
  answer(job: Record<string, unknown> | undefined): void;
  gone(): boolean;
}

async function main(): Promise<void> {
  const subscriber = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const channel = process.env.MINIMAL_CHANNEL ?? 'minimal-dispatch';
  // Oldest first, as Runplane hands a job to the oldest registered take.
  const parked: ParkedTake[] = [];
  subscriber.on('message', (_channel: string, job: string) => {
    let take = parked.shift();
    while (take?.gone()) take = parked.shift();
    take?.answer(JSON.parse(job) as Record<string, unknown>);
  });
  await subscriber.subscribe(channel);
  const app = createFastify({ logger: false });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/take', (request, reply) => {
    return new Promise((resolve) => {
      const timer = setTimeout(() => take.answer(undefined), WAIT_MS);
      const take: ParkedTake = {
        answer: (job) => {
          clearTimeout(timer);
          const index = parked.indexOf(take);
          if (job === undefined && index >= 0) parked.splice(index, 1);
          resolve(job ?? reply.code(204).send());
        },
        gone: () => request.socket.destroyed,
      };
      parked.push(take);
    });
  });
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
  const stop = (): void => {
    void app.close().then(() => {
      subscriber.disconnect();
      process.exit(0);
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main();
