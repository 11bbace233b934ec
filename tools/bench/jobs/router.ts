// The job-router under benchmark, its clients and its workers: one process on its own database and Redis prefix,
// with one account, API key and template, and the helpers each suite drives it with. Closing it deletes its Redis keys.
import { request } from 'undici';
import { createAccountsServices } from '@runplane/accounts';
import { createPrismaClient, type DbClient, newId } from '@runplane/db';
import type { JobEngine } from '@runplane/jobs';
import { createRedis, normalizePrefix } from '@runplane/queue';
import { cleanupRedisPrefix } from '@runplane/testing';
import { runWorker } from '@runplane/worker-sdk';
import { jobRouterEnvSchema, type JobRouterConfig } from '../../../apps/job-router/src/config';
import { createJobRouterEngine } from '../../../apps/job-router/src/engine';
import { createWorkerTokensService } from '../../../apps/job-router/src/worker-tokens';
import { createBenchDatabase } from '../bench-database';
import { type RouterLaunch, startRouterProcess } from '../router-process';

/** Bench settings, read from the environment by the runner. */
export interface JobsBenchOptions {
  adminDatabaseUrl: string;
  durationSeconds: number;
  connections: number;
  /** Jobs of each side in the end-to-end comparison, in slices (BENCH_E2E_JOBS, default END_TO_END_JOBS.total). */
  e2eJobs?: number;
  /** Unmeasured jobs of each side before them (BENCH_E2E_WARM_UP_JOBS, default END_TO_END_JOBS.warmUp). */
  e2eWarmUpJobs?: number;
  /** Where the job-router process writes a V8 CPU profile when it exits (BENCH_CPU_PROFILE_DIR). */
  cpuProfileDir?: string;
  /** How the job-router process is started (BENCH_ROUTER…; the SWC loader when absent). */
  router?: RouterLaunch;
  /** Only these suites (BENCH_ONLY=accept,e2e,dispatch,runsync); all when absent. */
  only?: string[];
}

export { catalog } from './catalog';
/** Every benchmark job's input. */
export const INPUT = { prompt: 'benchmark', n: 1 };
const LOOSE_LIMITS = 'run=100000000/1000000,runsync=100000000/1000000,status=100000000/1000000';

/**
 * One HTTP request of the benchmark's clients (submitters, /runsync callers, the dispatch taker), through undici's
 * `request` like the worker SDK: the client shares the machine's cores with the router, so it should cost little.
 */
export async function call(
  url: string,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  const response = await request(url, init);
  return { status: response.statusCode, text: await response.body.text() };
}

/** A POST /run under load: its URL, the server process whose CPU it costs, and the headers it needs. */
export interface RunTarget {
  url: string;
  pid: number;
  headers: Record<string, string>;
}

/** The job-router's POST /run of `endpointId` as a load target, with the bench key. */
export function runplaneRunTarget(router: Router, endpointId: string): RunTarget {
  return {
    url: `${router.base}/v2/${endpointId}/run`,
    pid: router.pid,
    headers: { authorization: `Bearer ${router.secret}`, 'content-type': 'application/json' },
  };
}

/** A job-router process on its own database and Redis prefix, with one account and key. */
export interface Router {
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

/** The bench account: its API key secret, and the endpoints it creates from one serverless template. */
async function seedAccount(db: DbClient): Promise<Pick<Router, 'secret' | 'accountId' | 'endpoint'>> {
  const account = await createAccountsServices(db).accounts.create({ name: 'bench' });
  const { secret } = await createAccountsServices(db).apiKeys.create(account.id, { name: 'bench', scope: 'ALL' });
  const template = await db.template.create({
    data: { id: newId(), accountId: account.id, name: 'bench', imageName: 'runplane/echo:1', isServerless: true },
  });
  const endpoint = async (): Promise<string> =>
    (
      await db.endpoint.create({
        data: { id: newId(), accountId: account.id, name: `ep-${newId()}`, templateId: template.id },
      })
    ).id;
  return { secret, accountId: account.id, endpoint };
}

/** Starts the job-router process on a database of its own (dropped by `close`). */
export async function startRouter(options: JobsBenchOptions): Promise<Router> {
  const database = await createBenchDatabase(options.adminDatabaseUrl, `runplane_bench_jobs_${process.pid}`);
  const env = {
    DATABASE_URL: database.url,
    REDIS_PREFIX: `runplane-bench-jobs-${process.pid}`,
    LOG_LEVEL: 'error',
    JOB_RATE_LIMITS: LOOSE_LIMITS,
  };
  const config = jobRouterEnvSchema.parse(env);
  const process_ = await startRouterProcess(env, options.router, options.cpuProfileDir);
  const engineRedis = createRedis(config.REDIS_URL);
  const engine = createJobRouterEngine({ redis: engineRedis, config });
  const db = createPrismaClient(database.url);
  return {
    base: process_.base,
    pid: process_.pid,
    config,
    engine,
    ...(await seedAccount(db)),
    workerToken: async (endpointId, workerId) =>
      (await createWorkerTokensService(db).issue(endpointId, workerId)).token,
    async close() {
      await process_.close();
      await engine.close();
      // Every suite's queued jobs, workers and counters go with the router (its prefix only).
      await cleanupRedisPrefix(engineRedis, normalizePrefix(config.REDIS_PREFIX));
      engineRedis.disconnect();
      await db.$disconnect();
      await database.drop();
    },
  };
}

/** Starts `count` protocol workers (no-op handler); resolves with their run promises once all are issued tokens. */
export async function startWorkers(
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
