// The scheduler bench's world: one control plane (kube-apiserver, kube-scheduler, kwok) with kwok GPU nodes, a
// database with one serverless endpoint, and the scheduler running on the Kubernetes driver against them.
import { readFileSync } from 'node:fs';
import { createAccountsServices } from '@runplane/accounts';
import { seedCatalog } from '@runplane/catalog';
import { createPrismaClient, type DbClient, newId } from '@runplane/db';
import { RedisJobEngine } from '@runplane/jobs';
import { createKubeClients, type KubeClients } from '@runplane/kube';
import { createRedis, normalizePrefix } from '@runplane/queue';
import {
  cleanupRedisPrefix,
  connectionFromKubeconfig,
  createTestDatabase,
  createTestNamespace,
  type KubeControlPlane,
  KUBE_BUILD_HINT,
  KubeTestClient,
  NODE_POOL_LABEL,
  pollUntil,
  prepareTestDatabases,
  registerNodePools,
  startKubeControlPlane,
} from '@runplane/testing';
import { schedulerEnvSchema } from '../../../apps/scheduler/src/config';
import { createDriver } from '../../../apps/scheduler/src/drivers/create-driver';
import { SchedulerRuntime } from '../../../apps/scheduler/src/scheduler-runtime';
import { ensureKubeBinaries } from '../../k8s-testenv/build';
import { BENCH } from './direct-pods';
import { type BenchContext, POOL } from './placement';

const REDIS_URL = 'redis://127.0.0.1:6379';

/** Progress lines of the scheduler bench (stderr, so the table on stdout stays clean). */
export const log = (line: string): void => void process.stderr.write(`[bench:scheduler] ${line}\n`);

/** The bench's catalog and `nodes` kwok GPU nodes of 8 RTX 4090 each. */
async function prepareCluster(db: DbClient, plane: KubeControlPlane, nodes: number): Promise<void> {
  await seedCatalog(db);
  log(`registering ${nodes} kwok GPU nodes`);
  const pool = { name: 'rtx', dataCenterId: BENCH.dataCenterId, count: nodes, cpu: '64', memory: '512Gi', pods: 110 };
  const gpu = { type: BENCH.gpuTypeId, count: 8, memoryMiB: 24564 };
  await registerNodePools(plane.kubeconfigPath, [{ ...pool, gpu }], {
    poolLabel: POOL,
    timeoutMs: 180_000,
  });
}

/** One account with a serverless endpoint on RTX 4090s that scales on request count, idle at 0..1 workers. */
async function seedEndpoint(db: DbClient): Promise<{ accountId: string; endpointId: string }> {
  const account = await createAccountsServices(db).accounts.create({ name: 'bench' });
  const template = await db.template.create({
    data: {
      id: newId(),
      accountId: account.id,
      name: 'bench',
      imageName: BENCH.image,
      isServerless: true,
      containerDiskInGb: 5,
    },
  });
  const endpoint = await db.endpoint.create({
    data: {
      id: newId(),
      accountId: account.id,
      name: 'bench',
      templateId: template.id,
      gpuTypeIds: [BENCH.gpuTypeId],
      gpuCount: 1,
      ...{ workersMin: 0, workersMax: 1, scalerType: 'REQUEST_COUNT', scalerValue: 1, idleTimeout: 600 },
    },
  });
  return { accountId: account.id, endpointId: endpoint.id };
}

/** What the scheduler runs on: its database, Redis prefix, cluster and namespace. */
interface SchedulerTarget {
  db: DbClient;
  databaseUrl: string;
  prefix: string;
  plane: KubeControlPlane;
  namespace: string;
}

/** Starts the scheduler on the Kubernetes driver. */
function startScheduler(target: SchedulerTarget): SchedulerRuntime {
  const { db, prefix, plane } = target;
  const config = schedulerEnvSchema.parse({
    DATABASE_URL: target.databaseUrl,
    REDIS_URL,
    REDIS_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    SCHEDULER_DRIVER: 'kubernetes',
    KUBECONFIG: plane.kubeconfigPath,
    KUBE_NAMESPACE: target.namespace,
    KUBE_NODE_SELECTOR: `${NODE_POOL_LABEL}=${POOL}`,
    KUBE_REQUEST_CONTAINER_DISK: 'false',
    ...{ KUBE_QPS: '1000', KUBE_BURST: '1000', SCHEDULER_TICK_MS: '200', SCHEDULER_STOP_GRACE_MS: '0' },
  });
  const redis = createRedis(REDIS_URL, { keyPrefix: prefix });
  const runtime = new SchedulerRuntime(config, db, redis, createDriver(config, process.env, db));
  runtime.start();
  return runtime;
}

/** Resolves once the scheduler has seen all `nodes` nodes ready. */
async function waitForInventory(db: DbClient, nodes: number): Promise<void> {
  await pollUntil(async () => (await db.machine.count({ where: { ready: true } })) === nodes || undefined, {
    timeoutMs: 120_000,
    description: 'the inventory',
  });
}

/**
 * Starts the control plane, building its binaries first only when they are missing: a build of the test environment's
 * other tools (helm, promtool) under way elsewhere does not hold the bench up.
 */
async function startControlPlane(): Promise<KubeControlPlane> {
  try {
    return await startKubeControlPlane({ log });
  } catch (error) {
    if (!String(error).includes(KUBE_BUILD_HINT)) throw error;
    const built = await ensureKubeBinaries({ log });
    if (built.length > 0) log(`built ${built.join(', ')}`);
    return startKubeControlPlane({ log });
  }
}

/** The running bench: what its phases drive, kube-apiserver's own client, and what stops it all. */
export interface SchedulerBench {
  context: BenchContext;
  apiserver: KubeTestClient;
  close(): Promise<void>;
}

/** The cluster before the scheduler starts: for a phase that must run without it (kube-scheduler alone). */
export interface BareCluster {
  plane: KubeControlPlane;
  kube: KubeClients;
  apiserver: KubeTestClient;
}

/** What the bench runs on: `nodes` kwok nodes, and what to do on them before the scheduler starts. */
export interface SchedulerBenchSettings {
  nodes: number;
  beforeScheduler?: (cluster: BareCluster) => Promise<void>;
}

/** Builds (if missing) and starts the control plane, then the scheduler on `nodes` kwok nodes. */
export async function startSchedulerBench({ nodes, beforeScheduler }: SchedulerBenchSettings): Promise<SchedulerBench> {
  await prepareTestDatabases();
  const plane = await startControlPlane();
  const database = await createTestDatabase('bench-scheduler');
  const db = createPrismaClient(database.url);
  const prefix = `runplane-bench-sched-${process.pid}`;
  const redis = createRedis(REDIS_URL);
  const kube = createKubeClients({ kubeconfigPath: plane.kubeconfigPath, qps: 1000, burst: 1000 });
  const running: { runtime?: SchedulerRuntime; engine?: RedisJobEngine } = {};
  const close = async (): Promise<void> => {
    await running.engine?.close();
    await running.runtime?.stop().catch(() => undefined);
    kube.close();
    await cleanupRedisPrefix(redis, normalizePrefix(prefix));
    redis.disconnect();
    await db.$disconnect();
    await database.drop();
    await plane.stop();
  };
  const apiserver = new KubeTestClient(connectionFromKubeconfig(readFileSync(plane.kubeconfigPath, 'utf8')));
  try {
    await prepareCluster(db, plane, nodes);
    await beforeScheduler?.({ plane, kube, apiserver });
    const namespace = (await createTestNamespace('bench-runplane', plane.kubeconfigPath)).name;
    const { accountId, endpointId } = await seedEndpoint(db);
    const runtime = startScheduler({ db, databaseUrl: database.url, prefix, plane, namespace });
    running.runtime = runtime;
    await waitForInventory(db, nodes);
    const engineOptions = { prefix, region: 'bench', heartbeatIntervalMs: 10_000, maxRetries: 0 };
    const engine = new RedisJobEngine({ queueOrdered: createRedis(REDIS_URL), ...engineOptions });
    running.engine = engine;
    return { context: { plane, db, runtime, kube, namespace, endpointId, accountId, engine }, apiserver, close };
  } catch (error) {
    await close();
    throw error;
  }
}
