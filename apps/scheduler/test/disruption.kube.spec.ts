// Disruptions on a real control plane: an on-demand workload preempts an interruptible Runplane Pod (kube-scheduler's
// DefaultPreemption), and a node is lost. Both show on the Runplane Pod, with the usage stop event.
import { GPU_RESOURCE, PRIORITY_CLASS_NAMES, strategicMergePatchOptions } from '@runplane/kube';
import {
  createTestNamespace,
  GPU_PRODUCT_LABEL,
  NODE_POOL_LABEL,
  pollUntil,
  type TestNamespace,
} from '@runplane/testing';
import { H100, H100_PAIR_POOL, type KubePlatform, RTX, rtxPool, startKubePlatform } from './kube-platform';

const POOL = 'sched-kube-disrupt';

type Pod = { id: string; desiredStatus: string; lastStatusChange: string | null; publicIp: string | null };

describe('preemption and node loss on Kubernetes', () => {
  let k: KubePlatform;
  let other: TestNamespace;

  beforeAll(async () => {
    k = await startKubePlatform(POOL, [H100_PAIR_POOL, rtxPool(2)]);
    other = await createTestNamespace('sched-kube-other-tenant', k.env);
  }, 240_000);

  afterAll(async () => {
    await other?.delete();
    await k?.close();
  }, 120_000);

  const until = <T>(what: string, check: () => Promise<T | undefined | false>) =>
    pollUntil(check, { timeoutMs: 30_000, intervalMs: 100, description: what });
  const row = (id: string) => k.p.db.pod.findUniqueOrThrow({ where: { id } });
  const events = async (id: string) =>
    [...(await k.p.usageEvents()).keys()].filter((key) => key.startsWith(`${id}:`)).sort();
  const create = async (body: Record<string, unknown>): Promise<string> => {
    const created = await k.p.v1('POST', '/pods', {
      name: 'disrupted',
      imageName: 'runpod/base:0.6.2',
      gpuCount: 1,
      dataCenterIds: ['EU-RO-1'],
      ...body,
    });
    expect(created.status).toBe(201);
    const id = (created.body as Pod).id;
    await until('the Runplane Pod to run', async () => (await row(id)).observedPhase === 'RUNNING');
    return id;
  };

  it('an on-demand workload preempts an interruptible Pod, which stops with a note and a usage stop event', async () => {
    const id = await create({ gpuTypeIds: [H100], gpuCount: 2, interruptible: true });
    expect((await k.pod(id))?.spec?.priorityClassName).toBe(PRIORITY_CLASS_NAMES.interruptible);
    // Another tenant's on-demand workload needs the whole node.
    await k.kube.core.createNamespacedPod({
      namespace: other.name,
      body: {
        metadata: { name: 'on-demand' },
        spec: {
          priorityClassName: PRIORITY_CLASS_NAMES.onDemand,
          nodeSelector: { [NODE_POOL_LABEL]: POOL, [GPU_PRODUCT_LABEL]: 'NVIDIA-H100-80GB-HBM3' },
          tolerations: [{ key: GPU_RESOURCE, operator: 'Exists', effect: 'NoSchedule' }],
          containers: [{ name: 'main', image: 'runpod/base:0.6.2', resources: { limits: { [GPU_RESOURCE]: '2' } } }],
        },
      },
    });
    // The Pod is stopped with what was observed of it (the preemption's message) in one write: never one alone.
    const stopped = await until('the Pod to be interrupted', async () => {
      const pod = await row(id);
      return pod.desiredStatus === 'EXITED' && pod;
    });
    expect(stopped.lastStatusChange).toMatch(/^Interrupted by Runplane: /);
    expect(stopped.statusMessage).toMatch(/preempt/i);
    expect((await k.p.v1('GET', `/pods/${id}`)).body).toMatchObject({ desiredStatus: 'EXITED', publicIp: null });
    await until('the on-demand pod to run on the node', async () => {
      const pod = await k.kube.core.readNamespacedPod({ name: 'on-demand', namespace: other.name });
      return pod.status?.phase === 'Running';
    });
    await until(
      'usage started and stopped',
      async () => JSON.stringify(await events(id)) === JSON.stringify([`${id}:started:1`, `${id}:stopped:1`]),
    );
    expect(await k.pod(id)).toBeUndefined();
    // The foreign workload's GPUs are no longer offered.
    await until(
      'the H100 machine to offer no GPUs',
      async () => (await k.p.db.machine.findUniqueOrThrow({ where: { id: `${POOL}-h100-0` } })).gpuCount === 0,
    );
  });

  it('a deleted node fails its Pods, stops their usage and takes the machine out of placement', async () => {
    const id = await create({ gpuTypeIds: [RTX] });
    const node = (await row(id)).machineId ?? '';
    await k.kube.core.deleteNode({ name: node });
    const failed = await until('the Pod to fail', async () => {
      const pod = await row(id);
      return pod.observedPhase === 'FAILED' && pod;
    });
    expect(failed.statusMessage).toMatch(new RegExp(`Machine ${node} is (gone|not available)`));
    expect(failed.desiredStatus).toBe('RUNNING');
    await until('usage stopped', async () => (await events(id)).includes(`${id}:stopped:1`));
    await until('the orphaned Kubernetes pod to be removed', async () => (await k.pod(id)) === undefined);
    await until(
      'the machine to leave placement',
      async () => (await k.p.db.machine.findUniqueOrThrow({ where: { id: node } })).ready === false,
    );
  });

  it('a node that turns NotReady fails its Pods and leaves placement; nothing fits any more', async () => {
    const id = await create({ gpuTypeIds: [RTX] });
    const node = (await row(id)).machineId ?? '';
    // kwok's chaos stage flips the node's Ready condition to False, as a kubelet that stopped reporting would.
    await k.kube.core.patchNode(
      { name: node, body: { metadata: { labels: { 'node-not-ready.stage.kwok.x-k8s.io': 'true' } } } },
      strategicMergePatchOptions(),
    );
    const failed = await until('the Pod to fail', async () => {
      const pod = await row(id);
      return pod.observedPhase === 'FAILED' && pod;
    });
    expect(failed.statusMessage).toMatch(new RegExp(`Machine ${node} is (not ready: node failed|not available)`));
    await until('usage stopped', async () => (await events(id)).includes(`${id}:stopped:1`));
    await until(
      'the machine to leave placement',
      async () => (await k.p.db.machine.findUniqueOrThrow({ where: { id: node } })).ready === false,
    );
    const refused = await k.p.v1('POST', '/pods', {
      name: 'nowhere',
      imageName: 'runpod/base:0.6.2',
      gpuTypeIds: [RTX],
      gpuCount: 1,
    });
    expect(refused.status).toBe(503);
  });
});
