// The "minimal pipeline" baseline: a bare Fastify + raw BullMQ server process (minimal-server.ts) on the same Redis,
// driven like the job-router, for /run accept and end to end with 50 raw BullMQ workers completing the jobs.
import { createWorker, type Redis } from '@runplane/queue';
import { startServer } from '../bench-process';
import { catalog } from './catalog';
import { INPUT, type RunTarget } from './router';

const ENDPOINT = 'minimal';

/** A running minimal-pipeline server. */
export interface MinimalServer {
  base: string;
  pid: number;
  prefix: string;
  close(): Promise<void>;
}

/** Starts minimal-server.ts as its own process on `prefix` and resolves once it answers. */
export async function startMinimalServer(redisUrl: string, prefix: string): Promise<MinimalServer> {
  const server = await startServer('tools/bench/jobs/minimal-server.ts', {
    REDIS_URL: redisUrl,
    MINIMAL_PREFIX: prefix,
  });
  return { ...server, prefix };
}

/** The minimal server's POST /run as a load target: its URL, its process (for CPU) and its headers (no auth). */
export function minimalRunTarget(server: MinimalServer): RunTarget {
  return { url: `${server.base}/v2/${ENDPOINT}/run`, pid: server.pid, headers: { 'content-type': 'application/json' } };
}

/** How raw BullMQ workers take the bench's jobs: `workers` Worker instances, each running up to `concurrency` at once. */
export interface RawWorkerShape {
  workers: number;
  concurrency: number;
}

/** Raw BullMQ workers answering the bench's jobs under `prefix`. */
export interface RawWorkers {
  /** Resolves once they have completed `count` jobs in all. */
  completed(count: number): Promise<void>;
  close(): Promise<void>;
}

/** Raw BullMQ workers of `shape` answering the bench's jobs under `prefix`, all on the connection `redis`. */
export function rawWorkers(redis: Redis, prefix: string, shape: RawWorkerShape): RawWorkers {
  let done = 0;
  const waiting: { count: number; resolve: () => void }[] = [];
  const workers = Array.from({ length: shape.workers }, () =>
    createWorker(
      catalog,
      'bench-jobs',
      { 'bench.job': async () => INPUT },
      { redis, prefix, concurrency: shape.concurrency },
    ),
  );
  const onCompleted = () => {
    done += 1;
    for (const waiter of waiting.filter((candidate) => candidate.count <= done)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  for (const { worker } of workers) worker.on('completed', onCompleted);
  return {
    completed: (count) =>
      count <= done ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ count, resolve })),
    close: async () => {
      await Promise.all(workers.map((worker) => worker.close()));
    },
  };
}
