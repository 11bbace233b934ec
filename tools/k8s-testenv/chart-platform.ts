import { randomBytes } from 'node:crypto';
import { seedCatalog } from '@runplane/catalog';
import type { createPrismaClient } from '@runplane/db';
import {
  callWithKey,
  createTestStores,
  getFreePort,
  getFreePorts,
  type ProcessGroup,
  stopProcessGroup,
  TEST_REDIS_URL,
} from '@runplane/testing';
import { REPO_ROOT, startApp, waitForPort, waitReady } from '../../apps/scheduler/test/app-process';
import { type PlatformHarness, startPlatform } from '../../apps/scheduler/test/harness';
import { accountWithKey } from '../../apps/scheduler/test/test-account';

/**
 * Runplane as the chart deploys it, every service its own process: gateway and job-router, and scheduler processes
 * started with the environment the caller gives (the chart's scheduler env and a kubeconfig).
 */
export interface ProcessPlatform {
  db: ReturnType<typeof createPrismaClient>;
  jobApiUrl: string;
  secret: string;
  /** Starts one more scheduler process and resolves once it is ready. */
  startScheduler(env: Record<string, string>): Promise<ProcessGroup>;
  /** Calls the v1 API with the account's key. */
  v1(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

/** Gateway and job-router processes, each resolved once it listens; a failed start leaves neither running. */
async function startFrontends(
  common: Record<string, string>,
  jobRouterEnv: Record<string, string>,
): Promise<{ groups: ProcessGroup[]; gatewayPort: number; jobPort: number }> {
  const [gatewayPort = 0, jobPort = 0] = await getFreePorts(2);
  const gateway = startApp('gateway', { ...common, PORT: String(gatewayPort) });
  const jobRouter = startApp('job-router', { ...common, PORT: String(jobPort), ...jobRouterEnv });
  try {
    await waitForPort(gateway, gatewayPort, 'gateway');
    await waitForPort(jobRouter, jobPort, 'job-router');
  } catch (error) {
    for (const group of [gateway, jobRouter]) await stopProcessGroup(group, 5_000);
    throw error;
  }
  return { groups: [gateway, jobRouter], gatewayPort, jobPort };
}

/** Starts the database, gateway and job-router of one test file; schedulers come with {@link ProcessPlatform.startScheduler}. */
export async function startProcessPlatform(
  label: string,
  jobRouterEnv: Record<string, string> = {},
): Promise<ProcessPlatform> {
  const stores = await createTestStores(label);
  const { db } = stores;
  await seedCatalog(db);
  // Gateway and scheduler share the key: the scheduler decrypts the registry passwords the gateway stored.
  const common = {
    DATABASE_URL: stores.database.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: stores.prefix,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  };
  const { groups, gatewayPort, jobPort } = await startFrontends(common, jobRouterEnv).catch(async (error: unknown) => {
    await stores.close();
    throw error;
  });
  const { secret } = await accountWithKey(db, label);
  const jobApiUrl = `http://127.0.0.1:${jobPort}`;
  const schedulerEnv = { ...common, ...schedulerDefaults(stores.stateDir, jobApiUrl) };
  return {
    db,
    jobApiUrl,
    secret,
    async startScheduler(env) {
      const port = await getFreePort();
      const group = startApp('scheduler', { ...schedulerEnv, PORT: String(port), ...env });
      groups.push(group);
      await waitReady(group, port, 'scheduler');
      return group;
    },
    v1: (method, route, body) => callWithKey(`http://127.0.0.1:${gatewayPort}/v1${route}`, secret, method, body),
    async close() {
      for (const group of groups) await stopProcessGroup(group, 5_000);
      await stores.close();
    },
  };
}

/** The scheduler processes' own settings: state folder, work folder, job API and fast loops. */
function schedulerDefaults(stateDir: string, jobApiUrl: string): Record<string, string> {
  return {
    SCHEDULER_STATE_DIR: stateDir,
    SCHEDULER_WORK_DIR: REPO_ROOT,
    SCHEDULER_JOB_API_URL: jobApiUrl,
    SCHEDULER_TICK_MS: '250',
    SCHEDULER_STOP_GRACE_MS: '1000',
    SCHEDULER_WORKER_PING_MS: '1000',
  };
}

/** The scheduler's settings that stay fixed in a spec acting as the chart's scheduler. */
const SCHEDULER_TEST_ENV = { SCHEDULER_STOP_GRACE_MS: '1000' };

/**
 * Starts the platform with its scheduler configured as the chart configures it (`chartEnv`, the chart's scheduler
 * env) and authenticated only by the kubeconfig at `kubeconfigPath`.
 */
export function startAsChartScheduler(
  pool: string,
  chartEnv: Record<string, string>,
  kubeconfigPath: string,
): Promise<PlatformHarness> {
  return startPlatform(pool, {
    scheduler: {
      ...chartEnv,
      KUBECONFIG: kubeconfigPath,
      RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      ...SCHEDULER_TEST_ENV,
    },
  });
}
