// Worker states from Kubernetes pod status: a worker pod kube-scheduler cannot place (its machine filled up meanwhile)
// is throttled with the cluster's reason; a crash-looping worker pod (CrashLoopBackOff) is unhealthy and replaced.
import { WorkerStateStore } from '@runplane/endpoints';
import { GPU_RESOURCE, LABELS, PRIORITY_CLASS_NAMES } from '@runplane/kube';
import { createRedis, type Redis } from '@runplane/queue';
import { createTestNamespace, pollUntil, type TestNamespace } from '@runplane/testing';
import { type KubePlatform, RTX, startKubePlatform } from './kube-platform';
import { crashLoopPod } from './kwok-workers';

const POOL = 'sched-kube-workers';

describe('worker states from pod status on Kubernetes', () => {
  let k: KubePlatform;
  let other: TestNamespace;
  let redis: Redis;
  let states: WorkerStateStore;
  let endpointId: string;
  const node = `${POOL}-rtx4090-0`;

  beforeAll(async () => {
    k = await startKubePlatform(POOL, [
      {
        name: 'rtx4090',
        dataCenterId: 'EU-RO-1',
        count: 1,
        cpu: '32',
        memory: '128Gi',
        gpu: { type: RTX, count: 1, memoryMiB: 24564 },
      },
    ]);
    other = await createTestNamespace('sched-kube-workers-tenant', k.env);
    redis = createRedis('redis://127.0.0.1:6379', { keyPrefix: k.p.prefix });
    states = new WorkerStateStore(redis);
    const template = await k.p.v1('POST', '/templates', {
      name: 'echo',
      imageName: 'runplane/echo-worker:dev',
      isServerless: true,
      containerDiskInGb: 5,
    });
    const endpoint = await k.p.v1('POST', '/endpoints', {
      name: 'always-on',
      templateId: (template.body as { id: string }).id,
      gpuTypeIds: [RTX],
      gpuCount: 1,
      workersMin: 1,
      workersMax: 1,
    });
    expect(endpoint.status).toBe(200);
    endpointId = (endpoint.body as { id: string }).id;
  }, 240_000);

  afterAll(async () => {
    redis?.disconnect();
    await other?.delete();
    await k?.close();
  }, 120_000);

  const until = <T>(what: string, check: () => Promise<T | undefined | false>) =>
    pollUntil(check, { timeoutMs: 30_000, intervalMs: 100, description: what });
  const workerPods = async () =>
    (
      await k.kube.core.listNamespacedPod({
        namespace: k.namespace,
        labelSelector: `${LABELS.endpointId}=${endpointId}`,
      })
    ).items.filter((pod) => !pod.metadata?.deletionTimestamp);
  const workerPod = async () => (await workerPods())[0];
  /** A running worker pod; with `replacing`, one of another worker (the replaced one's pod may not be deleted yet). */
  const runningWorker = (replacing?: string) =>
    until(replacing ? 'a running replacement worker pod' : 'a running worker pod', async () =>
      (await workerPods()).find(
        (pod) => pod.status?.phase === 'Running' && pod.metadata?.labels?.[LABELS.podId] !== replacing,
      ),
    );

  it('a worker pod that cannot be scheduled any more is throttled with the scheduler reason', async () => {
    const pod = await runningWorker();
    await until(
      'the worker to be published initializing',
      async () => (await states.read(endpointId)).counts.initializing === 1,
    );
    // Another tenant's pod lands on the node directly; then the worker's pod is lost and must be created again.
    await k.kube.core.createNamespacedPod({
      namespace: other.name,
      body: {
        metadata: { name: 'squatter' },
        spec: {
          // As important as Runplane's on-demand workloads, so kube-scheduler does not preempt it for the worker.
          priorityClassName: PRIORITY_CLASS_NAMES.onDemand,
          nodeName: node,
          tolerations: [{ key: GPU_RESOURCE, operator: 'Exists', effect: 'NoSchedule' }],
          containers: [{ name: 'main', image: 'runpod/base:0.6.2', resources: { limits: { [GPU_RESOURCE]: '1' } } }],
        },
      },
    });
    await k.kube.core.deleteNamespacedPod({
      name: pod.metadata?.name ?? '',
      namespace: k.namespace,
      gracePeriodSeconds: 0,
    });
    const throttled = await until('the worker to be throttled', async () =>
      (await states.read(endpointId)).workers.find((entry) => entry.state === 'throttled'),
    );
    expect(throttled).toMatchObject({
      workerId: pod.metadata?.labels?.[LABELS.podId],
      reason: expect.stringMatching(/^Unschedulable: .*Insufficient nvidia\.com\/gpu/),
    });
    expect((await workerPod())?.status?.phase).toBe('Pending');
  });

  it('a crash-looping worker pod is unhealthy and replaced', async () => {
    await k.kube.core.deleteNamespacedPod({ name: 'squatter', namespace: other.name, gracePeriodSeconds: 0 });
    const pod = await runningWorker();
    const workerId = pod.metadata?.labels?.[LABELS.podId] ?? '';
    await until(
      'the worker to be initializing again',
      async () => (await states.read(endpointId)).counts.throttled === 0,
    );
    await crashLoopPod(k, pod);
    const unhealthy = await until('the worker to be unhealthy', async () =>
      (await states.read(endpointId)).workers.find((entry) => entry.state === 'unhealthy'),
    );
    expect(unhealthy).toMatchObject({ workerId, reason: 'CrashLoopBackOff after 3 restarts (exit code 1)' });
    const replacementId = (await runningWorker(workerId)).metadata?.labels?.[LABELS.podId];
    expect(replacementId).toEqual(expect.any(String));
    expect(replacementId).not.toBe(workerId);
    expect(await k.p.db.pod.count({ where: { id: replacementId, endpointId } })).toBe(1);
    expect(await k.p.db.pod.count({ where: { id: workerId } })).toBe(0);
  });
});
