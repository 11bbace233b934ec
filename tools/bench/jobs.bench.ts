// Job API benchmarks: Runplane's job-router against raw BullMQ (through @runplane/queue) on the same Redis, same run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { request } from 'undici';
import { z } from 'zod';
import { createAccountsServices } from '@runplane/accounts';
import {
  applyMigrations,
  createPrismaClient,
  ensureDatabaseExists,
  newId,
  withDatabaseAdmin,
  withDatabaseName,
} from '@runplane/db';
import type { JobEngine } from '@runplane/jobs';
import { createQueue, normalizePrefix, createRedis, createWorker, defineJobCatalog, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix } from '@runplane/testing';
import { runWorker } from '@runplane/worker-sdk';
import { jobRouterEnvSchema, type JobRouterConfig } from '../../apps/job-router/src/config';
import { createJobRouterEngine } from '../../apps/job-router/src/engine';
import { createWorkerTokensService } from '../../apps/job-router/src/worker-tokens';
import { cpuCeiling, measureCpu, perOperation } from './cpu-meter';
import { startRouterProcess } from './router-process';

/** Bench settings, read from the environment by the runner. */
export interface JobsBenchOptions {
  adminDatabaseUrl: string;
  durationSeconds: number;
  connections: number;
  /** Jobs in each end-to-end run (BENCH_E2E_JOBS, default 5000). */
  e2eJobs?: number;
  /** Where the job-router process writes a V8 CPU profile when it exits (BENCH_CPU_PROFILE_DIR). */
  cpuProfileDir?: string;
  /** Only these suites (BENCH_ONLY=accept,e2e,dispatch,runsync); all when absent. */
  only?: string[];
}

/** One figure with its baseline and target. */
interface Row {
  metric: string;
  runplane: number;
  baseline?: number;
  unit: string;
  /** `ratio>=x` compares runplane/baseline, `<=x` compares the figure itself. */
  target: string;
  pass: boolean;
  /** CPU per operation of each party, baseline and Runplane (diagnostics, printed under the table). */
  cpu?: { baseline: string; runplane: string; ceiling?: number };
}

const catalog = defineJobCatalog({
  'bench.job': { queue: 'bench-jobs', schema: z.object({ input: z.record(z.string(), z.unknown()) }), attempts: 1 },
});
const INPUT = { prompt: 'benchmark', n: 1 };
const E2E_WORKERS = 50;
const LOOSE_LIMITS = 'run=100000000/1000000,runsync=100000000/1000000,status=100000000/1000000';

/**
 * One HTTP request of the benchmark's clients (submitters, /runsync callers, the dispatch taker), through undici's
 * `request` like the worker SDK: the client shares the machine's cores with the router, so it should cost little.
 */
async function call(
  url: string,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  const response = await request(url, init);
  return { status: response.statusCode, text: await response.body.text() };
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

/** A job-router process on its own database and Redis prefix, with one account and key. */
interface Router {
  base: string;
  config: JobRouterConfig;
  secret: string;
  /** An engine of this process on the router's keys (for counts, and to submit without HTTP). */
  engine: JobEngine;
  endpoint(): Promise<string>;
  workerToken(endpointId: string, workerId: string): Promise<string>;
  accountId: string;
  /** The job-router process, for CPU accounting. */
  pid: number;
  close(): Promise<void>;
}

async function startRouter(options: JobsBenchOptions): Promise<Router> {
  const databaseName = `runplane_bench_jobs_${process.pid}`;
  const databaseUrl = withDatabaseName(options.adminDatabaseUrl, databaseName);
  await ensureDatabaseExists(databaseUrl);
  await applyMigrations(databaseUrl);
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: `runplane-bench-jobs-${process.pid}`,
    LOG_LEVEL: 'error',
    JOB_RATE_LIMITS: LOOSE_LIMITS,
  };
  const config = jobRouterEnvSchema.parse(env);
  const process_ = await startRouterProcess(env, options.cpuProfileDir);
  const engineRedis = createRedis(config.REDIS_URL);
  const engine = createJobRouterEngine({ redis: engineRedis, config });
  const db = createPrismaClient(databaseUrl);
  const account = await createAccountsServices(db).accounts.create({ name: 'bench' });
  const { secret } = await createAccountsServices(db).apiKeys.create(account.id, { name: 'bench', scope: 'ALL' });
  const template = await db.template.create({
    data: { id: newId(), accountId: account.id, name: 'bench', imageName: 'runplane/echo:1', isServerless: true },
  });
  return {
    base: process_.base,
    pid: process_.pid,
    config,
    secret,
    accountId: account.id,
    engine,
    endpoint: async () =>
      (
        await db.endpoint.create({
          data: { id: newId(), accountId: account.id, name: `ep-${newId()}`, templateId: template.id },
        })
      ).id,
    workerToken: async (endpointId, workerId) =>
      (await createWorkerTokensService(db).issue(endpointId, workerId)).token,
    async close() {
      await process_.close();
      await engine.close();
      engineRedis.disconnect();
      await db.$disconnect();
      await withDatabaseAdmin(options.adminDatabaseUrl, (admin) => admin.drop(databaseName));
    },
  };
}

/** Runs `count` concurrent loops of `op` for `durationMs`; throughput and latency percentiles. */
async function closedLoop(op: () => Promise<unknown>, count: number, durationMs: number) {
  const latencies: number[] = [];
  const deadline = Date.now() + durationMs;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: count }, async () => {
      while (Date.now() < deadline) {
        const start = process.hrtime.bigint();
        await op();
        latencies.push(ms(start));
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const perSecond = (latencies.length * 1000) / ms(started);
  return { count: latencies.length, perSecond, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

async function benchAccept(router: Router, redis: Redis, rawPrefix: string, options: JobsBenchOptions): Promise<Row[]> {
  const queue = createQueue(catalog, 'bench-jobs', { redis, prefix: rawPrefix });
  const duration = options.durationSeconds * 1000;
  const raw = await measureCpu(redis, undefined, () =>
    closedLoop(() => queue.add('bench.job', { input: INPUT }), options.connections, duration),
  );
  await queue.close();
  const endpointId = await router.endpoint();
  const runplane = await measureCpu(redis, router.pid, () =>
    autocannon({
      url: `${router.base}/v2/${endpointId}/run`,
      method: 'POST',
      duration: options.durationSeconds,
      connections: options.connections,
      headers: { authorization: `Bearer ${router.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: INPUT }),
    }),
  );
  // The floor of any HTTP answer on this machine: the same router and load generator, a route that does nothing.
  const floor = await measureCpu(redis, router.pid, () =>
    autocannon({ url: `${router.base}/healthz`, duration: options.durationSeconds, connections: options.connections }),
  );
  const result = runplane.result;
  if (result.non2xx > 0) console.warn(`/run answered ${result.non2xx} non-2xx responses`);
  const ratio = result.requests.average / raw.result.perSecond;
  const cpu = {
    baseline: perOperation(raw.cpu, raw.result.count),
    runplane: perOperation(runplane.cpu, result.requests.total),
    ceiling: cpuCeiling(runplane.cpu, result.requests.total),
  };
  return [
    {
      metric: '/run accept throughput',
      runplane: result.requests.average,
      baseline: raw.result.perSecond,
      unit: 'req/s',
      target: 'ratio>=0.5',
      pass: ratio >= 0.5,
      cpu,
    },
    {
      metric: '/run accept p50',
      runplane: result.latency.p50,
      baseline: raw.result.p50,
      unit: 'ms',
      target: '-',
      pass: true,
    },
    {
      metric: '/run accept p99',
      runplane: result.latency.p99,
      baseline: raw.result.p99,
      unit: 'ms',
      target: '-',
      pass: true,
    },
    {
      metric: 'HTTP floor: GET /healthz, same router',
      runplane: floor.result.requests.average,
      baseline: raw.result.perSecond,
      unit: 'req/s',
      target: '-',
      pass: true,
      cpu: { baseline: cpu.baseline, runplane: perOperation(floor.cpu, floor.result.requests.total) },
    },
  ];
}

/** Submits `total` jobs from `concurrency` loops. */
async function submitAll(total: number, concurrency: number, submit: () => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        await submit();
      }
    }),
  );
}

async function rawEndToEnd(redis: Redis, rawPrefix: string, total: number): Promise<number> {
  const queue = createQueue(catalog, 'bench-jobs', { redis, prefix: `${rawPrefix}e2e:` });
  let completed = 0;
  let allDone!: () => void;
  const finished = new Promise<void>((resolve) => (allDone = resolve));
  const worker = createWorker(
    catalog,
    'bench-jobs',
    { 'bench.job': async () => INPUT },
    { redis, prefix: `${rawPrefix}e2e:`, concurrency: E2E_WORKERS },
  );
  worker.worker.on('completed', () => (completed += 1) === total && allDone());
  const start = process.hrtime.bigint();
  await submitAll(total, E2E_WORKERS, () => queue.add('bench.job', { input: INPUT }));
  await finished;
  const perSecond = (total * 1000) / ms(start);
  await worker.close();
  await queue.close();
  return perSecond;
}

/** Starts `count` protocol workers (no-op handler); resolves with their run promises once all are issued tokens. */
async function startWorkers(
  router: Router,
  endpointId: string,
  count: number,
  signal: AbortSignal,
): Promise<Promise<void>[]> {
  const baseUrl = `${router.base}/v2`;
  const started: Promise<void>[] = [];
  for (let i = 0; i < count; i += 1) {
    const workerId = `bench-${endpointId}-${i}`;
    const token = await router.workerToken(endpointId, workerId);
    started.push(
      runWorker({ handler: async () => INPUT, baseUrl, endpointId, workerId, token, signal, log: () => undefined }),
    );
  }
  return started;
}

async function runplaneEndToEnd(router: Router, total: number): Promise<number> {
  const endpointId = await router.endpoint();
  const stop = new AbortController();
  const workers = await startWorkers(router, endpointId, E2E_WORKERS, stop.signal);
  const headers = { authorization: `Bearer ${router.secret}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ input: INPUT });
  const start = process.hrtime.bigint();
  await submitAll(total, E2E_WORKERS, async () => {
    const response = await call(`${router.base}/v2/${endpointId}/run`, { method: 'POST', headers, body });
    if (response.status !== 200) throw new Error(`/run answered ${response.status}: ${response.text}`);
  });
  while ((await router.engine.counts(endpointId)).completed < total)
    await new Promise((resolve) => setTimeout(resolve, 5));
  const perSecond = (total * 1000) / ms(start);
  stop.abort();
  await Promise.all(workers);
  return perSecond;
}

async function benchEndToEnd(router: Router, redis: Redis, rawPrefix: string, total: number): Promise<Row[]> {
  const raw = await measureCpu(redis, undefined, () => rawEndToEnd(redis, rawPrefix, total));
  const runplane = await measureCpu(redis, router.pid, () => runplaneEndToEnd(router, total));
  const metric = `end to end, ${total} jobs, ${E2E_WORKERS} workers`;
  const cpu = {
    baseline: perOperation(raw.cpu, total),
    runplane: perOperation(runplane.cpu, total),
    ceiling: cpuCeiling(runplane.cpu, total),
  };
  const pass = runplane.result / raw.result >= 0.3;
  return [{ metric, runplane: runplane.result, baseline: raw.result, unit: 'jobs/s', target: 'ratio>=0.3', pass, cpu }];
}

/** Lets a waiting party settle before the next sample, so each sample measures a wake-up, not a queued hand-out. */
const PARK_MS = 10;
const park = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, PARK_MS));

/**
 * Raw BullMQ's own dispatch latency on the same Redis: from `queue.add` to the processor of an idle BullMQ worker
 * (blocked on its queue) being called. The floor a queue on this Redis and machine gives a waiting consumer.
 */
async function rawDispatch(redis: Redis, rawPrefix: string, samples: number): Promise<number[]> {
  const prefix = `${rawPrefix}dispatch:`;
  const queue = createQueue(catalog, 'bench-jobs', { redis, prefix });
  let arrived: () => void = () => undefined;
  const handlers = {
    'bench.job': async () => {
      arrived();
      return INPUT;
    },
  };
  const worker = createWorker(catalog, 'bench-jobs', handlers, { redis, prefix });
  await worker.worker.waitUntilReady();
  const latencies: number[] = [];
  try {
    for (let i = 0; i < samples; i += 1) {
      await park();
      const called = new Promise<void>((resolve) => (arrived = resolve));
      const start = process.hrtime.bigint();
      await queue.add('bench.job', { input: INPUT });
      await called;
      latencies.push(ms(start));
    }
  } finally {
    await worker.close();
    await queue.close();
  }
  return latencies.sort((a, b) => a - b);
}

async function benchDispatch(router: Router, redis: Redis, rawPrefix: string, samples: number): Promise<Row[]> {
  const raw = await rawDispatch(redis, rawPrefix, samples);
  const endpointId = await router.endpoint();
  const workerId = 'bench-dispatch';
  const headers = { authorization: await router.workerToken(endpointId, workerId) };
  const worker = `${router.base}/v2/${endpointId}`;
  const policy = { executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: false };
  const latencies: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const take = call(`${worker}/job-take/${workerId}?job_in_progress=0`, { headers });
    // Give the take time to park in the engine, so the figure is the wake-up path, not a queued hand-out.
    await park();
    const start = process.hrtime.bigint();
    await router.engine.submit({
      endpointId,
      accountId: router.accountId,
      input: INPUT,
      extra: {},
      policy,
      sync: false,
    });
    const response = await take;
    latencies.push(ms(start));
    const job = JSON.parse(response.text) as { id: string };
    await call(`${worker}/job-done/${workerId}/${job.id}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ output: 1 }),
    });
  }
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 0.5);
  return [
    {
      metric: 'dispatch enqueue → parked job-take p50',
      runplane: p50,
      baseline: percentile(raw, 0.5),
      unit: 'ms',
      target: '<=2',
      pass: p50 <= 2,
    },
    {
      metric: 'dispatch enqueue → parked job-take p99',
      runplane: percentile(latencies, 0.99),
      baseline: percentile(raw, 0.99),
      unit: 'ms',
      target: '-',
      pass: true,
    },
  ];
}

async function benchRunsync(router: Router, samples: number): Promise<Row[]> {
  const endpointId = await router.endpoint();
  const stop = new AbortController();
  const workers = await startWorkers(router, endpointId, 2, stop.signal);
  const headers = { authorization: `Bearer ${router.secret}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ input: INPUT });
  const latencies: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    let start = process.hrtime.bigint();
    await call(`${router.base}/healthz`);
    floor.push(ms(start));
    start = process.hrtime.bigint();
    const response = await call(`${router.base}/v2/${endpointId}/runsync?wait=10000`, {
      method: 'POST',
      headers,
      body,
    });
    const record = JSON.parse(response.text) as { status?: string };
    if (record.status !== 'COMPLETED')
      throw new Error(`/runsync answered ${response.status} ${JSON.stringify(record)}`);
    latencies.push(ms(start));
  }
  stop.abort();
  await Promise.all(workers);
  latencies.sort((a, b) => a - b);
  floor.sort((a, b) => a - b);
  const p50 = percentile(latencies, 0.5);
  return [
    {
      metric: '/runsync no-op handler p50',
      runplane: p50,
      baseline: percentile(floor, 0.5),
      unit: 'ms',
      target: '<=3',
      pass: p50 <= 3,
    },
    {
      metric: '/runsync no-op handler p99',
      runplane: percentile(latencies, 0.99),
      baseline: percentile(floor, 0.99),
      unit: 'ms',
      target: '-',
      pass: true,
    },
  ];
}

function printRows(rows: Row[]): void {
  console.log(
    '\nJob API (baseline: raw BullMQ via @runplane/queue, for dispatch add → idle worker called; for /runsync: GET /healthz round trip)',
  );
  console.log(
    'metric'.padEnd(44),
    'runplane'.padStart(10),
    'baseline'.padStart(10),
    'ratio'.padStart(7),
    'unit'.padStart(7),
    'target'.padStart(11),
    ' ok',
  );
  for (const row of rows) {
    const ratio = row.baseline ? (row.runplane / row.baseline).toFixed(2) : '-';
    const baseline = row.baseline === undefined ? '-' : row.baseline.toFixed(2);
    console.log(
      row.metric.padEnd(44),
      row.runplane.toFixed(2).padStart(10),
      baseline.padStart(10),
      ratio.padStart(7),
      row.unit.padStart(7),
      row.target.padStart(11),
      row.pass ? ' yes' : ' NO',
    );
  }
  for (const row of rows) {
    if (!row.cpu) continue;
    console.log(`${row.metric}: baseline ${row.cpu.baseline}; runplane ${row.cpu.runplane}`);
    if (row.cpu.ceiling !== undefined && row.baseline) {
      const { ceiling } = row.cpu;
      console.log(
        `  CPU ceiling at this CPU per operation on ${availableParallelism()} cores: ${ceiling.toFixed(0)} ${row.unit} (ratio ${(ceiling / row.baseline).toFixed(2)})`,
      );
    }
  }
}

/** Runs every job benchmark, prints a table and writes the figures to bench/results/jobs.json. */
export async function benchJobs(options: JobsBenchOptions): Promise<Row[]> {
  const router = await startRouter(options);
  const redis = createRedis(router.config.REDIS_URL);
  const rawPrefix = `runplane-bench-raw-${process.pid}:`;
  try {
    const wanted = (suite: string) => !options.only || options.only.includes(suite);
    const rows = [
      ...(wanted('accept') ? await benchAccept(router, redis, rawPrefix, options) : []),
      ...(wanted('e2e') ? await benchEndToEnd(router, redis, rawPrefix, options.e2eJobs ?? 5000) : []),
      ...(wanted('dispatch') ? await benchDispatch(router, redis, rawPrefix, 300) : []),
      ...(wanted('runsync') ? await benchRunsync(router, 300) : []),
    ];
    printRows(rows);
    const file = path.join(__dirname, '../../bench/results/jobs.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify({ measuredAt: new Date().toISOString(), options, rows }, null, 2)}\n`);
    console.log(`written: ${path.relative(process.cwd(), file)}`);
    return rows;
  } finally {
    await router.close();
    await cleanupRedisPrefix(redis, rawPrefix);
    await cleanupRedisPrefix(redis, normalizePrefix(router.config.REDIS_PREFIX));
    redis.disconnect();
  }
}
