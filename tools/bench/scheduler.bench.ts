// Scheduler on Kubernetes: Runplane's end-to-end placement of worker pods on kwok GPU nodes against kube-scheduler's
// own bind rate for the same pods created directly, and the autoscaler's reaction time (queue over the threshold ->
// worker pod created). One control plane (kube-apiserver, kube-scheduler, kwok) for the whole suite.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createAccountsServices } from '@runplane/accounts';
import { seedCatalog } from '@runplane/catalog';
import { createPrismaClient, newId } from '@runplane/db';
import { RedisJobEngine } from '@runplane/jobs';
import {
  createKubeClients,
  GPU_RESOURCE,
  type KubeClients,
  LABELS,
  PRIORITY_CLASS_NAMES,
  type V1Pod,
  watchResource,
} from '@runplane/kube';
import { createRedis, normalizePrefix } from '@runplane/queue';
import {
  cleanupRedisPrefix,
  connectionFromKubeconfig,
  createTestDatabase,
  createTestNamespace,
  GPU_PRODUCT_LABEL,
  NODE_POOL_LABEL,
  pollUntil,
  prepareTestDatabases,
  type KubeControlPlane,
  KubeTestClient,
  registerNodePools,
  startKubeControlPlane,
} from '@runplane/testing';
import { schedulerEnvSchema } from '../../apps/scheduler/src/config';
import { createDriver } from '../../apps/scheduler/src/drivers/create-driver';
import { SchedulerRuntime } from '../../apps/scheduler/src/scheduler-runtime';
import { ensureKubeBinaries } from '../k8s-testenv/build';
import { processCpuMs } from './cpu-meter';

/** Bench settings, read from the environment by the runner. */
export interface SchedulerBenchOptions {
  /** Worker pods placed in each run (BENCH_SCHEDULER_PODS, default 1000). */
  pods: number;
  /** kwok GPU nodes (BENCH_SCHEDULER_NODES, default 200), 8 GPUs each. */
  nodes: number;
  /** Autoscaler reaction samples (BENCH_SCHEDULER_REACTIONS, default 10). */
  reactions: number;
}

interface Row {
  metric: string;
  runplane: number;
  baseline?: number;
  unit: string;
  target: string;
  pass: boolean;
}

const RTX = 'NVIDIA GeForce RTX 4090';
const POOL = 'bench-scheduler';
const REDIS_URL = 'redis://127.0.0.1:6379';
const log = (line: string): void => void process.stderr.write(`[bench:scheduler] ${line}\n`);
const seconds = (start: number): number => (performance.now() - start) / 1000;

/** CPU ms of every postgres process on this machine (the server is shared; other databases add noise). */
function postgresCpuMs(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += processCpuMs(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** CPU by party, to show where a phase's time goes on a machine whose cores all of them share. */
type CpuByParty = Record<'runplane' | 'kube-apiserver' | 'etcd' | 'kube-scheduler' | 'kwok' | 'postgres', number>;

function cpuSnapshot(plane: KubeControlPlane): CpuByParty {
  const own = process.cpuUsage();
  return {
    runplane: (own.user + own.system) / 1000,
    'kube-apiserver': processCpuMs(plane.processes['kube-apiserver'].pid),
    etcd: processCpuMs(plane.processes.etcd.pid),
    'kube-scheduler': processCpuMs(plane.processes['kube-scheduler'].pid),
    kwok: processCpuMs(plane.processes.kwok.pid),
    postgres: postgresCpuMs(),
  };
}

function perPod(before: CpuByParty, after: CpuByParty, pods: number): CpuByParty {
  return Object.fromEntries(
    Object.entries(after).map(([party, ms]) => [
      party,
      Number(((ms - before[party as keyof CpuByParty]) / pods).toFixed(2)),
    ]),
  ) as CpuByParty;
}

async function withCpu<T>(
  plane: KubeControlPlane,
  pods: number,
  phase: () => Promise<T>,
): Promise<{ result: T; cpuMsPerPod: CpuByParty }> {
  const before = cpuSnapshot(plane);
  const result = await phase();
  return { result, cpuMsPerPod: perPod(before, cpuSnapshot(plane), pods) };
}

/** Seconds until every pod was bound, and the CPU each party spent in exactly that time (per pod). */
interface Bound {
  seconds: number;
  cpuMsPerPod: CpuByParty;
}

/** kube-apiserver's request counter by `verb resource` (its /metrics), to show what each phase asked of it. */
async function apiserverRequests(client: KubeTestClient): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const line of (await client.text('/metrics')).split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const verb = /verb="([^"]*)"/.exec(line)?.[1] ?? '';
    const resource = /resource="([^"]*)"/.exec(line)?.[1] ?? '';
    const subresource = /subresource="([^"]*)"/.exec(line)?.[1];
    const key = `${verb} ${resource}${subresource ? `/${subresource}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

/** Runs `phase` and returns the requests kube-apiserver served meanwhile, per pod, busiest first. */
async function withRequests<T>(
  client: KubeTestClient,
  pods: number,
  phase: () => Promise<T>,
): Promise<{ result: T; perPod: string }> {
  const before = await apiserverRequests(client);
  const result = await phase();
  const after = await apiserverRequests(client);
  const perPod = [...after]
    .map(([key, count]): [string, number] => [key, (count - (before.get(key) ?? 0)) / pods])
    .filter(([, count]) => count >= 0.01)
    .sort((a, b) => b[1] - a[1])
    .map(([key, count]) => `${key} ${count.toFixed(2)}`)
    .join(', ');
  return { result, perPod };
}

/** Watches a namespace's pods and resolves when `count` of them are bound to a node. */
async function timeToBind(
  plane: KubeControlPlane,
  kube: KubeClients,
  namespace: string,
  count: number,
  start: () => Promise<void>,
): Promise<Bound> {
  const bound = new Set<string>();
  let done: () => void = () => undefined;
  const all = new Promise<void>((resolve) => (done = resolve));
  const note = (pod: V1Pod): void => {
    if (pod.spec?.nodeName && pod.metadata?.name) bound.add(pod.metadata.name);
    if (bound.size >= count) done();
  };
  const watch = watchResource<V1Pod>({
    watch: kube.watch,
    path: `/api/v1/namespaces/${namespace}/pods`,
    list: (query) => kube.core.listNamespacedPod({ namespace, ...query }),
    onAdd: note,
    onUpdate: note,
  });
  await watch.synced;
  const cpu = cpuSnapshot(plane);
  const began = performance.now();
  await start();
  await all;
  const elapsed = seconds(began);
  const cpuMsPerPod = perPod(cpu, cpuSnapshot(plane), count);
  await watch.stop();
  return { seconds: elapsed, cpuMsPerPod };
}

/** kube-scheduler alone: the same GPU pods created directly, 50 requests in flight. */
async function baselineBindRate(
  plane: KubeControlPlane,
  kube: KubeClients,
  count: number,
): Promise<{ rate: number; cpuMsPerPod: CpuByParty }> {
  const ns = await createTestNamespace('bench-direct', plane.kubeconfigPath);
  const body = (index: number): V1Pod => ({
    metadata: { name: `direct-${index}` },
    spec: {
      priorityClassName: PRIORITY_CLASS_NAMES.onDemand,
      nodeSelector: { [NODE_POOL_LABEL]: POOL, [GPU_PRODUCT_LABEL]: 'NVIDIA-GeForce-RTX-4090' },
      tolerations: [{ key: GPU_RESOURCE, operator: 'Exists', effect: 'NoSchedule' }],
      containers: [
        { name: 'workload', image: 'runplane/echo-worker:dev', resources: { limits: { [GPU_RESOURCE]: '1' } } },
      ],
    },
  });
  try {
    const bound = await timeToBind(plane, kube, ns.name, count, async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          while (next < count) await kube.core.createNamespacedPod({ namespace: ns.name, body: body(next++) });
        }),
      );
    });
    return { rate: count / bound.seconds, cpuMsPerPod: bound.cpuMsPerPod };
  } finally {
    await ns.delete();
  }
}

/**
 * Runplane: the autoscaler places workersMin workers (Pod rows), the reconciler creates their pods, kube-scheduler
 * binds them. Returns the end-to-end rate and, as a diagnostic, the rate at which the rows were written.
 */
async function runplanePlacement(
  context: BenchContext,
  count: number,
): Promise<{ bound: number; placed: number; cpuMsPerPod: CpuByParty }> {
  const { db, runtime, kube, namespace, endpointId, plane } = context;
  let rowsAt = 0;
  const began = performance.now();
  const bound = await timeToBind(plane, kube, namespace, count, async () => {
    await db.endpoint.update({ where: { id: endpointId }, data: { workersMin: count, workersMax: count } });
    runtime.loop.trigger();
    void pollUntil(async () => (await db.pod.count({ where: { endpointId } })) >= count || undefined, {
      timeoutMs: 600_000,
      intervalMs: 20,
    }).then(
      () => (rowsAt = seconds(began)),
      () => undefined,
    );
  });
  await db.endpoint.update({ where: { id: endpointId }, data: { workersMin: 0, workersMax: 1 } });
  await db.pod.deleteMany({ where: { endpointId } });
  await pollUntil(async () => (await kube.core.listNamespacedPod({ namespace })).items.length === 0 || undefined, {
    timeoutMs: 300_000,
    intervalMs: 500,
    description: 'the bench workers to be removed',
  });
  return { bound: count / bound.seconds, placed: rowsAt > 0 ? count / rowsAt : 0, cpuMsPerPod: bound.cpuMsPerPod };
}

/** Milliseconds from a job entering an idle endpoint's queue to its worker pod existing in the cluster. */
async function autoscalerReaction(context: BenchContext, samples: number): Promise<number[]> {
  const { db, kube, namespace, endpointId, engine, accountId } = context;
  const latencies: number[] = [];
  for (let sample = 0; sample < samples; sample += 1) {
    const began = performance.now();
    const job = await engine.submit({
      endpointId,
      accountId,
      input: { sample },
      extra: {},
      policy: { executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: false },
      sync: false,
    });
    await pollUntil(
      async () =>
        (await kube.core.listNamespacedPod({ namespace, labelSelector: `${LABELS.endpointId}=${endpointId}` })).items
          .length > 0 || undefined,
      { timeoutMs: 30_000, intervalMs: 10, description: 'the worker pod' },
    );
    latencies.push(performance.now() - began);
    await engine.cancel(endpointId, job.id).catch(() => undefined);
    await db.pod.deleteMany({ where: { endpointId } });
    await pollUntil(async () => (await kube.core.listNamespacedPod({ namespace })).items.length === 0 || undefined, {
      timeoutMs: 60_000,
      intervalMs: 50,
      description: 'the worker to go',
    });
  }
  return latencies.sort((a, b) => a - b);
}

interface BenchContext {
  plane: KubeControlPlane;
  db: ReturnType<typeof createPrismaClient>;
  runtime: SchedulerRuntime;
  kube: KubeClients;
  namespace: string;
  endpointId: string;
  accountId: string;
  engine: RedisJobEngine;
}

function printRows(rows: Row[]): void {
  console.log('\nScheduler on Kubernetes (baseline: kube-scheduler binding the same pods created directly)');
  console.log(
    'metric'.padEnd(48),
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
      row.metric.padEnd(48),
      row.runplane.toFixed(2).padStart(10),
      baseline.padStart(10),
      ratio.padStart(7),
      row.unit.padStart(7),
      row.target.padStart(11),
      row.pass ? ' yes' : ' NO',
    );
  }
}

/** Runs the scheduler benchmarks, prints a table and writes bench/results/scheduler.json. */
export async function benchScheduler(options: SchedulerBenchOptions): Promise<Row[]> {
  const built = await ensureKubeBinaries({ log });
  if (built.length > 0) log(`built ${built.join(', ')}`);
  await prepareTestDatabases();
  const plane = await startKubeControlPlane({ log });
  const database = await createTestDatabase('bench-scheduler');
  const db = createPrismaClient(database.url);
  const prefix = `runplane-bench-sched-${process.pid}`;
  const redis = createRedis(REDIS_URL);
  const kube = createKubeClients({ kubeconfigPath: plane.kubeconfigPath, qps: 1000, burst: 1000 });
  let runtime: SchedulerRuntime | undefined;
  try {
    await seedCatalog(db);
    log(`registering ${options.nodes} kwok GPU nodes`);
    await registerNodePools(
      plane.kubeconfigPath,
      [
        {
          name: 'rtx',
          dataCenterId: 'EU-RO-1',
          count: options.nodes,
          cpu: '64',
          memory: '512Gi',
          pods: 110,
          gpu: { type: RTX, count: 8, memoryMiB: 24564 },
        },
      ],
      {
        poolLabel: POOL,
        timeoutMs: 180_000,
      },
    );
    const ns = await createTestNamespace('bench-runplane', plane.kubeconfigPath);
    const { accounts } = createAccountsServices(db);
    const account = await accounts.create({ name: 'bench' });
    const template = await db.template.create({
      data: {
        id: newId(),
        accountId: account.id,
        name: 'bench',
        imageName: 'runplane/echo-worker:dev',
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
        gpuTypeIds: [RTX],
        gpuCount: 1,
        workersMin: 0,
        workersMax: 1,
        scalerType: 'REQUEST_COUNT',
        scalerValue: 1,
        idleTimeout: 600,
      },
    });
    const config = schedulerEnvSchema.parse({
      DATABASE_URL: database.url,
      REDIS_URL,
      REDIS_PREFIX: prefix,
      LOG_LEVEL: 'warn',
      SCHEDULER_DRIVER: 'kubernetes',
      KUBECONFIG: plane.kubeconfigPath,
      KUBE_NAMESPACE: ns.name,
      KUBE_NODE_SELECTOR: `${NODE_POOL_LABEL}=${POOL}`,
      KUBE_REQUEST_CONTAINER_DISK: 'false',
      KUBE_QPS: '1000',
      KUBE_BURST: '1000',
      SCHEDULER_TICK_MS: '200',
      SCHEDULER_STOP_GRACE_MS: '0',
    });
    runtime = new SchedulerRuntime(
      config,
      db,
      createRedis(REDIS_URL, { keyPrefix: prefix }),
      createDriver(config, process.env, db),
    );
    runtime.start();
    await pollUntil(async () => (await db.machine.count({ where: { ready: true } })) === options.nodes || undefined, {
      timeoutMs: 120_000,
      description: 'the inventory',
    });
    const engine = new RedisJobEngine({
      redis: createRedis(REDIS_URL),
      prefix,
      region: 'bench',
      heartbeatIntervalMs: 10_000,
      maxRetries: 0,
    });
    const context: BenchContext = {
      plane,
      db,
      runtime,
      kube,
      namespace: ns.name,
      endpointId: endpoint.id,
      accountId: account.id,
      engine,
    };

    log(`kube-scheduler alone: ${options.pods} pods`);
    const apiserver = new KubeTestClient(connectionFromKubeconfig(readFileSync(plane.kubeconfigPath, 'utf8')));
    const directRequests = await withRequests(apiserver, options.pods, () =>
      withCpu(plane, options.pods, () => baselineBindRate(plane, kube, options.pods)),
    );
    const direct = directRequests.result;
    const baseline = direct.result.rate;
    log(`Runplane end to end: ${options.pods} worker pods`);
    const runplaneRequests = await withRequests(apiserver, options.pods, () =>
      withCpu(plane, options.pods, () => runplanePlacement(context, options.pods)),
    );
    const runplane = runplaneRequests.result;
    const placed = runplane.result;
    log(`autoscaler reaction: ${options.reactions} samples`);
    await db.endpoint.update({ where: { id: endpoint.id }, data: { workersMin: 0, workersMax: 1 } });
    const reactions = await autoscalerReaction(context, options.reactions);
    const p50 = reactions[Math.floor(reactions.length / 2)] ?? 0;
    const rows: Row[] = [
      {
        metric: `worker pods placed and bound (${options.pods} on ${options.nodes} nodes)`,
        runplane: placed.bound,
        baseline,
        unit: 'pods/s',
        target: 'ratio>=0.8',
        pass: placed.bound / baseline >= 0.8,
      },
      {
        metric: '  of which: worker rows placed by the autoscaler',
        runplane: placed.placed,
        unit: 'rows/s',
        target: '-',
        pass: true,
      },
      {
        metric: 'autoscaler reaction p50 (job queued -> worker pod)',
        runplane: p50,
        unit: 'ms',
        target: '<=1000',
        pass: p50 <= 1000,
      },
      { metric: 'autoscaler reaction max', runplane: reactions.at(-1) ?? 0, unit: 'ms', target: '-', pass: true },
    ];
    printRows(rows);
    const cpu = { direct: direct.cpuMsPerPod, runplane: runplane.cpuMsPerPod };
    // Inside the timed window only (creation to the last bind): what the two rates are made of on a shared machine.
    const timed = { direct: direct.result.cpuMsPerPod, runplane: placed.cpuMsPerPod };
    console.log(`CPU ms per pod, kube-scheduler alone: ${JSON.stringify(cpu.direct)}`);
    console.log(`CPU ms per pod, Runplane end to end (incl. removing them): ${JSON.stringify(cpu.runplane)}`);
    console.log(`CPU ms per pod while timed, kube-scheduler alone: ${JSON.stringify(timed.direct)}`);
    console.log(`CPU ms per pod while timed, Runplane end to end: ${JSON.stringify(timed.runplane)}`);
    console.log(`kube-apiserver requests per pod, kube-scheduler alone: ${directRequests.perPod}`);
    console.log(
      `kube-apiserver requests per pod, Runplane end to end (incl. removing them): ${runplaneRequests.perPod}`,
    );
    const file = path.join(__dirname, '../../bench/results/scheduler.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(
      file,
      `${JSON.stringify({ measuredAt: new Date().toISOString(), options, rows, cpuMsPerPod: cpu, timedCpuMsPerPod: timed }, null, 2)}\n`,
    );
    console.log(`written: ${path.relative(process.cwd(), file)}`);
    await engine.close();
    return rows;
  } finally {
    await runtime?.stop().catch(() => undefined);
    kube.close();
    await cleanupRedisPrefix(redis, normalizePrefix(prefix));
    redis.disconnect();
    await db.$disconnect();
    await database.drop();
    await plane.stop();
  }
}
