import { randomBytes } from 'node:crypto';
import { seedCatalog } from '@runplane/catalog';
import type { createPrismaClient, DbClient } from '@runplane/db';
import { buildService, type NestFastifyApplication } from '@runplane/http';
import { bullPrefix, type Redis } from '@runplane/queue';
import {
  callWithKey,
  createTestStores,
  getFreePorts,
  pollUntil,
  type ProcessGroup,
  stopProcessGroup,
  TEST_REDIS_URL,
} from '@runplane/testing';
import { type SchedulerConfig, schedulerEnvSchema } from '../src/config';
import { SCHEDULER_RUNTIME, SchedulerModule } from '../src/scheduler.module';
import type { SchedulerRuntime } from '../src/scheduler-runtime';
import { startPlacementListener } from '../src/start-scheduler';
import { REPO_ROOT, startApp, waitForPort } from './app-process';
import { accountWithKey } from './test-account';
import { killLeftoverWorkloads } from './workloads';

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
  /** The in-process scheduler's /metrics exposition. */
  schedulerMetrics(): Promise<string>;
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

/** An app run as a process for the platform, and the port it listens on. */
interface PlatformProcess {
  name: string;
  group: ProcessGroup;
  port: number;
}

/** Gateway (and job-router, if asked) processes on the given ports; they are not waited for here. */
function startProcesses(
  common: Record<string, string>,
  ports: { gateway: number; jobRouter: number },
  options: PlatformOptions,
): PlatformProcess[] {
  const encryptionKey = options.scheduler?.['RUNPLANE_ENCRYPTION_KEY'] ?? randomBytes(32).toString('hex');
  const gatewayEnv = { ...common, PORT: String(ports.gateway), RUNPLANE_ENCRYPTION_KEY: encryptionKey };
  const processes = [{ name: 'gateway', port: ports.gateway, group: startApp('gateway', gatewayEnv) }];
  if (options.jobRouter) {
    const env = { ...common, PORT: String(ports.jobRouter), ...options.jobRouterEnv };
    processes.push({ name: 'job-router', port: ports.jobRouter, group: startApp('job-router', env) });
  }
  return processes;
}

/** The in-process scheduler's configuration: the platform's stores, a fast tick, then the test's overrides. */
function schedulerConfig(
  common: Record<string, string>,
  stateDir: string,
  jobApiUrl: string,
  overrides: Record<string, string> = {},
): SchedulerConfig {
  return schedulerEnvSchema.parse({
    ...common,
    SCHEDULER_STATE_DIR: stateDir,
    SCHEDULER_WORK_DIR: REPO_ROOT,
    SCHEDULER_JOB_API_URL: jobApiUrl,
    SCHEDULER_TICK_MS: '250',
    SCHEDULER_STOP_GRACE_MS: '3000',
    SCHEDULER_WORKER_PING_MS: '1000',
    ...overrides,
  });
}

/** Builds the scheduler once every process listens; a failed start leaves nothing running behind it. */
async function startScheduler(config: SchedulerConfig, processes: PlatformProcess[]): Promise<NestFastifyApplication> {
  try {
    const app = await buildScheduler(config);
    for (const entry of processes) await waitForPort(entry.group, entry.port, entry.name);
    return app;
  } catch (error) {
    for (const entry of processes) await stopProcessGroup(entry.group, 5_000);
    throw error;
  }
}

/** Usage events published so far (the `usage` queue's jobs under `prefix`), by event id. */
async function usageEventsIn(redis: Redis, prefix: string): Promise<Map<string, Record<string, unknown>>> {
  const keys = await redis.keys(`${bullPrefix(prefix)}:usage:*`);
  const events = new Map<string, Record<string, unknown>>();
  for (const key of keys) {
    if ((await redis.type(key)) !== 'hash') continue;
    const job = await redis.hgetall(key);
    if (job['name'] !== 'usage.record' || !job['data']) continue;
    const envelope = JSON.parse(job['data']) as { payload: Record<string, unknown> };
    events.set(String(envelope.payload['eventId']), envelope.payload);
  }
  return events;
}

/** Deleting every Pod row lets the scheduler end their processes before it stops. */
async function stopScheduler(app: NestFastifyApplication, db: DbClient): Promise<void> {
  await db.pod.deleteMany({});
  await pollUntil(
    async () => (await app.get<SchedulerRuntime>(SCHEDULER_RUNTIME).driver.list()).length === 0 || undefined,
    { timeoutMs: 30_000, description: 'every workload process to end' },
  ).catch(() => undefined);
  await app.close();
}

/** Starts the platform pieces for one test file. */
export async function startPlatform(label: string, options: PlatformOptions = {}): Promise<PlatformHarness> {
  const stores = await createTestStores(label);
  const { db, redis, prefix, stateDir } = stores;
  await seedCatalog(db);
  const [gatewayPort = 0, jobPort = 0] = await getFreePorts(2);
  const common = { DATABASE_URL: stores.database.url, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix };
  const env = { ...common, LOG_LEVEL: 'warn', HOST: '127.0.0.1' };
  const processes = startProcesses(env, { gateway: gatewayPort, jobRouter: jobPort }, options);
  const jobApiUrl = `http://127.0.0.1:${jobPort}`;
  const config = schedulerConfig(env, stateDir, jobApiUrl, options.scheduler);
  let app = await startScheduler(config, processes);
  const { accountId, secret } = await accountWithKey(db, label);
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  return {
    ...{ db, redis, prefix, stateDir, gatewayUrl, jobApiUrl, secret, accountId, config },
    scheduler: () => app.get<SchedulerRuntime>(SCHEDULER_RUNTIME),
    schedulerMetrics: async () => (await app.getHttpAdapter().getInstance().inject({ url: '/metrics' })).body,
    async restartScheduler() {
      await app.close();
      app = await buildScheduler(config);
    },
    v1: (method, path, body) => callWithKey(`${gatewayUrl}/v1${path}`, secret, method, body),
    usageEvents: () => usageEventsIn(redis, prefix),
    async close() {
      await stopScheduler(app, db);
      for (const entry of processes) await stopProcessGroup(entry.group, 5_000);
      killLeftoverWorkloads(stateDir);
      await stores.close();
    },
  };
}
