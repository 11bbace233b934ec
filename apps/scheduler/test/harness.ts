import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccountsServices } from '@runplane/accounts';
import { seedCatalog } from '@runplane/catalog';
import { createPrismaClient } from '@runplane/db';
import { buildService, type NestFastifyApplication } from '@runplane/http';
import { bullPrefix, createRedis, type Redis } from '@runplane/queue';
import {
  cleanupRedisPrefix,
  createTestDatabase,
  getFreePorts,
  pollUntil,
  type ProcessGroup,
  stopProcessGroup,
  type TestDatabase,
  testRedisPrefix,
} from '@runplane/testing';
import { type SchedulerConfig, schedulerEnvSchema } from '../src/config';
import { SCHEDULER_RUNTIME, SchedulerModule } from '../src/scheduler.module';
import type { SchedulerRuntime } from '../src/scheduler-runtime';
import { startPlacementListener } from '../src/start-scheduler';
import { REPO_ROOT, startApp, waitForPort } from './app-process';

const REDIS_URL = 'redis://127.0.0.1:6379';

/** One platform for a test file: gateway and job-router as processes, the scheduler in this process (restartable). */
export interface PlatformHarness {
  db: ReturnType<typeof createPrismaClient>;
  redis: Redis;
  prefix: string;
  stateDir: string;
  gatewayUrl: string;
  jobApiUrl: string;
  secret: string;
  accountId: string;
  /** The scheduler's parsed configuration (to start another replica on the same platform). */
  config: SchedulerConfig;
  scheduler(): SchedulerRuntime;
  /** Closes the scheduler (its workloads keep running, as after a crash) and builds a new one on the same state. */
  restartScheduler(): Promise<void>;
  /** Calls the v1 API with the account's key. */
  v1(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** Usage events published so far (the `usage` queue's jobs), by event id. */
  usageEvents(): Promise<Map<string, Record<string, unknown>>>;
  close(): Promise<void>;
}

/** Options of {@link startPlatform}. */
export interface PlatformOptions {
  /** Scheduler environment overrides (machines, tick, grace ...). */
  scheduler?: Record<string, string>;
  /** Start the job-router too (not needed for Pods). */
  jobRouter?: boolean;
  jobRouterEnv?: Record<string, string>;
}

async function buildScheduler(config: SchedulerConfig): Promise<NestFastifyApplication> {
  const app = await buildService({
    serviceName: 'scheduler',
    errorStyle: 'v1',
    config,
    module: (infrastructure) => SchedulerModule.forRoot(infrastructure, config),
  });
  await startPlacementListener(app, config);
  await app.init();
  return app;
}

/** Starts the platform pieces for one test file. */
export async function startPlatform(label: string, options: PlatformOptions = {}): Promise<PlatformHarness> {
  const database: TestDatabase = await createTestDatabase(label);
  const prefix = testRedisPrefix(label);
  const stateDir = mkdtempSync(join(tmpdir(), `runplane-${label}-`));
  const db = createPrismaClient(database.url);
  await seedCatalog(db);
  const redis = createRedis(REDIS_URL);
  const [gatewayPort = 0, jobPort = 0] = await getFreePorts(2);
  const common = { DATABASE_URL: database.url, REDIS_URL, REDIS_PREFIX: prefix, LOG_LEVEL: 'warn', HOST: '127.0.0.1' };
  const processes: { name: string; group: ProcessGroup; port: number }[] = [
    {
      name: 'gateway',
      port: gatewayPort,
      group: startApp('gateway', {
        ...common,
        PORT: String(gatewayPort),
        RUNPLANE_ENCRYPTION_KEY: options.scheduler?.['RUNPLANE_ENCRYPTION_KEY'] ?? randomBytes(32).toString('hex'),
      }),
    },
  ];
  if (options.jobRouter) {
    processes.push({
      name: 'job-router',
      port: jobPort,
      group: startApp('job-router', { ...common, PORT: String(jobPort), ...options.jobRouterEnv }),
    });
  }
  const config = schedulerEnvSchema.parse({
    ...common,
    LOG_LEVEL: 'warn',
    SCHEDULER_STATE_DIR: stateDir,
    SCHEDULER_WORK_DIR: REPO_ROOT,
    SCHEDULER_JOB_API_URL: `http://127.0.0.1:${jobPort}`,
    SCHEDULER_TICK_MS: '250',
    SCHEDULER_STOP_GRACE_MS: '3000',
    SCHEDULER_WORKER_PING_MS: '1000',
    ...options.scheduler,
  });
  let app: NestFastifyApplication;
  try {
    app = await buildScheduler(config);
    for (const entry of processes) await waitForPort(entry.group, entry.port, entry.name);
  } catch (error) {
    // A failed start leaves nothing running behind it.
    for (const entry of processes) await stopProcessGroup(entry.group, 5_000);
    throw error;
  }
  const { accounts, apiKeys } = createAccountsServices(db);
  const account = await accounts.create({ name: `${label}-account` });
  const { secret } = await apiKeys.create(account.id, { name: 'test key', scope: 'ALL' });
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  return {
    db,
    redis,
    prefix,
    stateDir,
    gatewayUrl,
    jobApiUrl: `http://127.0.0.1:${jobPort}`,
    secret,
    accountId: account.id,
    config,
    scheduler: () => app.get<SchedulerRuntime>(SCHEDULER_RUNTIME),
    async restartScheduler() {
      await app.close();
      app = await buildScheduler(config);
    },
    async v1(method, path, body) {
      const response = await fetch(`${gatewayUrl}/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${secret}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
    },
    async usageEvents() {
      const base = `${bullPrefix(prefix)}:usage:`;
      const keys = await redis.keys(`${base}*`);
      const events = new Map<string, Record<string, unknown>>();
      for (const key of keys) {
        if ((await redis.type(key)) !== 'hash') continue;
        const job = await redis.hgetall(key);
        if (job['name'] !== 'usage.record' || !job['data']) continue;
        const envelope = JSON.parse(job['data']) as { payload: Record<string, unknown> };
        events.set(String(envelope.payload['eventId']), envelope.payload);
      }
      return events;
    },
    async close() {
      // Deleting every Pod row lets the scheduler end their processes before it stops.
      await db.pod.deleteMany({});
      await pollUntil(
        async () => (await app.get<SchedulerRuntime>(SCHEDULER_RUNTIME).driver.list()).length === 0 || undefined,
        {
          timeoutMs: 30_000,
          description: 'every workload process to end',
        },
      ).catch(() => undefined);
      await app.close();
      for (const entry of processes) await stopProcessGroup(entry.group, 5_000);
      await cleanupRedisPrefix(redis, prefix);
      redis.disconnect();
      await db.$disconnect();
      await database.drop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
