// What the scheduler bench times: pods bound by kube-scheduler alone, worker pods placed end to end by Runplane,
// and the autoscaler's reaction to a queued job.
import type { createPrismaClient } from '@runplane/db';
import { type RedisJobEngine, resolveJobPolicy } from '@runplane/jobs';
import { isNotFound, type KubeClients, LABELS, type V1Pod, watchResource } from '@runplane/kube';
import { createTestNamespace, type KubeControlPlane, pollUntil } from '@runplane/testing';
import type { SchedulerRuntime } from '../../../apps/scheduler/src/scheduler-runtime';
import { type CpuByParty, cpuSnapshot, perPod } from './cpu';
import { directPodBody, type DirectPodShape } from './direct-pods';

export { POOL } from './direct-pods';
const seconds = (start: number): number => (performance.now() - start) / 1000;

/** Seconds until every pod was bound, and the CPU each party spent in exactly that time (per pod). */
interface Bound {
  seconds: number;
  cpuMsPerPod: CpuByParty;
}

/** Which pods to wait for: `count` of them in `namespace`. */
interface BindWatch {
  plane: KubeControlPlane;
  kube: KubeClients;
  namespace: string;
  count: number;
}

/** Watches a namespace's pods and resolves when `count` of them are bound to a node. */
async function timeToBind({ plane, kube, namespace, count }: BindWatch, start: () => Promise<void>): Promise<Bound> {
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

function ignoreNotFound(error: unknown): void {
  if (!isNotFound(error)) throw error;
}

/**
 * kube-scheduler alone: the pods Runplane would create for as many workers (or, with `shape` 'minimal', bare GPU pods)
 * created directly, 50 requests in flight (see direct-pods.ts).
 */
export async function baselineBindRate(
  plane: KubeControlPlane,
  kube: KubeClients,
  count: number,
  shape: DirectPodShape = 'worker',
): Promise<{ rate: number; cpuMsPerPod: CpuByParty }> {
  const ns = await createTestNamespace('bench-direct', plane.kubeconfigPath);
  const body = directPodBody(shape, ns.name);
  try {
    const bound = await timeToBind({ plane, kube, namespace: ns.name, count }, async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          while (next < count) await kube.core.createNamespacedPod({ namespace: ns.name, body: body(next++) });
        }),
      );
    });
    return { rate: count / bound.seconds, cpuMsPerPod: bound.cpuMsPerPod };
  } finally {
    // One pod at a time, 50 in flight: one collection delete of thousands of pods outlasts kube-apiserver's 60 s limit.
    let next = 0;
    const remove = (name: string) => kube.core.deleteNamespacedPod({ name, namespace: ns.name, gracePeriodSeconds: 0 });
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < count) await remove(`direct-${next++}`).catch((error: unknown) => void ignoreNotFound(error));
      }),
    );
    await ns.delete();
  }
}

/**
 * Runplane: the autoscaler places workersMin workers (Pod rows), the reconciler creates their pods, kube-scheduler
 * binds them. Returns the end-to-end rate and, as a diagnostic, the rate at which the rows were written. `atPeak`
 * runs once every worker is bound, before they are removed (to sample the scheduler at its largest).
 */
export async function runplanePlacement(
  context: BenchContext,
  count: number,
  atPeak: () => Promise<void> = async () => undefined,
): Promise<{ bound: number; placed: number; cpuMsPerPod: CpuByParty }> {
  const { db, runtime, kube, namespace, endpointId, plane } = context;
  let rowsAt = 0;
  const began = performance.now();
  const bound = await timeToBind({ plane, kube, namespace, count }, async () => {
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
  await atPeak();
  await db.endpoint.update({ where: { id: endpointId }, data: { workersMin: 0, workersMax: 1 } });
  await removeWorkers(context, { timeoutMs: 300_000, intervalMs: 500 });
  return { bound: count / bound.seconds, placed: rowsAt > 0 ? count / rowsAt : 0, cpuMsPerPod: bound.cpuMsPerPod };
}

/**
 * Deletes the endpoint's worker rows once a scheduler pass that began after the caller's last change (a lowered
 * workersMin, a cancelled job) has ended: a pass that read the endpoint or its queue before that change would find the
 * rows gone and place the workers again.
 */
async function removeWorkerRows({ runtime, db, endpointId }: BenchContext): Promise<void> {
  runtime.loop.trigger();
  await runtime.loop.settled();
  await db.pod.deleteMany({ where: { endpointId } });
}

/** Removes the endpoint's worker rows (see removeWorkerRows), then waits for the reconciler to delete their pods. */
async function removeWorkers(context: BenchContext, wait: { timeoutMs: number; intervalMs: number }): Promise<void> {
  const { kube, namespace } = context;
  await removeWorkerRows(context);
  await pollUntil(async () => (await kube.core.listNamespacedPod({ namespace })).items.length === 0 || undefined, {
    ...wait,
    description: 'the bench workers to be removed',
  });
}

/** Milliseconds from a job entering an idle endpoint's queue to its worker pod existing in the cluster. */
export async function autoscalerReaction(context: BenchContext, samples: number): Promise<number[]> {
  const { kube, namespace, endpointId, engine, accountId } = context;
  const latencies: number[] = [];
  for (let sample = 0; sample < samples; sample += 1) {
    const began = performance.now();
    const job = await engine.submit({
      endpointId,
      accountId,
      input: { sample },
      extra: {},
      policy: resolveJobPolicy(undefined),
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
    await removeWorkers(context, { timeoutMs: 60_000, intervalMs: 50 });
  }
  return latencies.sort((a, b) => a - b);
}

/** The running scheduler and the endpoint whose workers it places. */
export interface BenchContext {
  plane: KubeControlPlane;
  db: ReturnType<typeof createPrismaClient>;
  runtime: SchedulerRuntime;
  kube: KubeClients;
  namespace: string;
  endpointId: string;
  accountId: string;
  engine: RedisJobEngine;
}
