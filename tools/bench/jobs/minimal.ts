// The "minimal pipeline" baseline: a bare Fastify + raw BullMQ server process (minimal-server.ts) on the same Redis,
// driven like the job-router, for /run accept and end to end with 50 raw BullMQ workers completing the jobs.
import { createWorker, type Redis } from '@runplane/queue';
import { getFreePort } from '@runplane/testing';
import { nodeScriptArgs, REPO_ROOT, startBenchProcess } from '../bench-process';
import { ms } from '../results';
import { catalog } from './catalog';
import { call, INPUT } from './router';

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
  const port = await getFreePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startBenchProcess({
    name: 'the minimal server',
    command: process.execPath,
    args: nodeScriptArgs('tools/bench/jobs/minimal-server.ts'),
    cwd: REPO_ROOT,
    env: { ...process.env, REDIS_URL: redisUrl, MINIMAL_PREFIX: prefix, PORT: String(port) },
    ready: async () => (await fetch(`${base}/healthz`)).ok,
    description: 'minimal server ready',
  });
  return { base, pid: server.pid, prefix, close: server.stop };
}

const runBody = JSON.stringify({ input: INPUT });

/** The minimal server's POST /run as a load target: its URL, its process (for CPU) and its headers (no auth). */
export function minimalRunTarget(server: MinimalServer) {
  return { url: `${server.base}/v2/${ENDPOINT}/run`, pid: server.pid, headers: { 'content-type': 'application/json' } };
}

/** Raw BullMQ workers (`concurrency` at once) answering the bench's jobs under `prefix`; `finished` once `total` are done. */
export function rawWorkers(redis: Redis, prefix: string, concurrency: number, total: number) {
  let completed = 0;
  let allDone!: () => void;
  const finished = new Promise<void>((resolve) => (allDone = resolve));
  const worker = createWorker(
    catalog,
    'bench-jobs',
    { 'bench.job': async () => INPUT },
    { redis, prefix, concurrency },
  );
  worker.worker.on('completed', () => (completed += 1) === total && allDone());
  return { worker, finished };
}

/**
 * Submits `total` jobs over HTTP to the minimal server from `concurrency` loops while as many raw workers complete them;
 * the milliseconds from the first submission to the last completion.
 */
export async function minimalEndToEnd(server: MinimalServer, total: number, concurrency: number, redis: Redis) {
  const { worker, finished } = rawWorkers(redis, server.prefix, concurrency, total);
  const start = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        const response = await call(`${server.base}/v2/${ENDPOINT}/run`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: runBody,
        });
        if (response.status !== 200) throw new Error(`minimal /run answered ${response.status}: ${response.text}`);
      }
    }),
  );
  await finished;
  const elapsed = ms(start);
  await worker.close();
  return elapsed;
}
