// Autoscaling on kwok: worker pods are real Kubernetes pods bound by kube-scheduler, but kwok runs no code, so this
// test speaks the worker protocol (libs/worker-sdk) for every worker pod that runs, with the environment and token
// the pod was given. A burst scales the endpoint 0 -> workersMax, idle workers go after idleTimeout (and stop counting
// in /health and in billing at their removal), a busy worker stays, and lowPriority jobs alone never scale up.
import { createHash } from 'node:crypto';
import { WorkerRetirement } from '@runplane/jobs';
import { LABELS } from '@runplane/kube';
import { pollUntil } from '@runplane/testing';
import { createQueueDelayEndpoint } from './echo-endpoint';
import { type KubePlatform, RTX, startKubePlatform } from './kube-platform';
import { KwokWorkers } from './kwok-workers';

const POOL = 'sched-kube-autoscale';

type Job = { id: string; status: string; workerId?: string; output?: { workerId: string } };

describe('autoscaling worker pods on Kubernetes (kwok)', () => {
  let k: KubePlatform;
  let endpointId: string;
  let workers: KwokWorkers;

  beforeAll(async () => {
    k = await startKubePlatform(
      POOL,
      [
        {
          name: 'rtx4090',
          dataCenterId: 'EU-RO-1',
          count: 3,
          cpu: '32',
          memory: '128Gi',
          gpu: { type: RTX, count: 1, memoryMiB: 24564 },
        },
      ],
      {
        jobRouter: true,
        jobRouterEnv: { JOB_TAKE_WAIT_MS: '1000', JOB_HEARTBEAT_INTERVAL_MS: '2000', JOB_SWEEP_INTERVAL_MS: '500' },
      },
    );
    const template = await k.p.v1('POST', '/templates', {
      name: 'echo',
      imageName: 'runplane/echo-worker:dev',
      isServerless: true,
      containerDiskInGb: 5,
    });
    expect(template.status).toBe(200);
    endpointId = await createQueueDelayEndpoint(k.p.v1, template);
    workers = new KwokWorkers(k, endpointId);
    workers.start();
  }, 240_000);

  afterAll(async () => {
    await workers?.stop();
    await k?.close();
  }, 120_000);

  const workerPods = async () =>
    (
      await k.kube.core.listNamespacedPod({
        namespace: k.namespace,
        labelSelector: `${LABELS.endpointId}=${endpointId}`,
      })
    ).items.filter((pod) => !pod.metadata?.deletionTimestamp);
  const run = async (input: Record<string, unknown>, policy?: Record<string, unknown>): Promise<string> => {
    const response = await fetch(`${k.p.jobApiUrl}/v2/${endpointId}/run`, {
      method: 'POST',
      headers: { authorization: k.p.secret, 'content-type': 'application/json' },
      body: JSON.stringify({ input, ...(policy ? { policy } : {}) }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as Job).id;
  };
  const status = async (id: string): Promise<Job> =>
    (await (
      await fetch(`${k.p.jobApiUrl}/v2/${endpointId}/status/${id}`, { headers: { authorization: k.p.secret } })
    ).json()) as Job;
  const passes = async (count: number) => {
    for (let pass = 0; pass < count; pass += 1) {
      k.p.scheduler().loop.trigger();
      await k.p.scheduler().loop.settled();
    }
  };

  it('lowPriority jobs alone never scale up', async () => {
    for (let index = 0; index < 3; index += 1) await run({ text: 'later' }, { lowPriority: true });
    await passes(5);
    expect(await k.p.db.pod.count({ where: { endpointId } })).toBe(0);
    expect(await workerPods()).toHaveLength(0);
    const purged = await fetch(`${k.p.jobApiUrl}/v2/${endpointId}/purge-queue`, {
      method: 'POST',
      headers: { authorization: k.p.secret },
    });
    expect(await purged.json()).toMatchObject({ removed: 3 });
  });

  it('a burst scales 0 -> workersMax worker pods bound to GPU nodes, and every job completes on them', async () => {
    const ids = await Promise.all(
      Array.from({ length: 6 }, (_, index) => run({ text: `job ${index}`, sleepMs: 1500 })),
    );
    const pods = await pollUntil(
      async () => {
        const list = await workerPods();
        return list.length === 2 && list.every((pod) => pod.status?.phase === 'Running') && list;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'workersMax worker pods to run' },
    );
    for (const pod of pods) {
      expect(pod.spec?.nodeName).toMatch(new RegExp(`^${POOL}-rtx4090-`));
      expect(pod.metadata?.labels).toMatchObject({ [LABELS.kind]: 'worker', [LABELS.endpointId]: endpointId });
      const env = Object.fromEntries(
        (pod.spec?.containers[0]?.env ?? []).map((v) => [
          v.name,
          v.value ?? `secret:${v.valueFrom?.secretKeyRef?.name}`,
        ]),
      );
      expect(env).toMatchObject({
        RUNPOD_ENDPOINT_ID: endpointId,
        RUNPOD_POD_ID: pod.metadata?.labels?.[LABELS.podId],
      });
      expect(env['RUNPOD_AI_API_KEY']).toMatch(/^secret:rp-tokens-/);
    }
    const results = await Promise.all(
      ids.map((id) =>
        pollUntil(
          async () => {
            const job = await status(id);
            return job.status === 'COMPLETED' && job;
          },
          { timeoutMs: 60_000, intervalMs: 200, description: `job ${id} to complete` },
        ),
      ),
    );
    const podIds = pods.map((pod) => pod.metadata?.labels?.[LABELS.podId]);
    for (const result of results) expect(podIds).toContain(result.output?.workerId);
    // Each worker pod holds the one live token of its worker (it was never rotated under the running pod).
    for (const pod of pods) {
      const ref = pod.spec?.containers[0]?.env?.find((variable) => variable.name === 'RUNPOD_AI_API_KEY')?.valueFrom
        ?.secretKeyRef;
      const secret = await k.kube.core.readNamespacedSecret({ name: ref?.name ?? '', namespace: k.namespace });
      const token = Buffer.from(secret.data?.[ref?.key ?? ''] ?? '', 'base64').toString('utf8');
      const live = await k.p.db.workerToken.findMany({
        where: { workerId: pod.metadata?.labels?.[LABELS.podId], revokedAt: null },
      });
      expect(live.map((row) => row.hash)).toEqual([createHash('sha256').update(token).digest('hex')]);
    }
    expect(await k.p.db.pod.count({ where: { endpointId } })).toBeLessThanOrEqual(2);
  }, 90_000);

  it('idle workers go after idleTimeout, back to workersMin = 0', async () => {
    await pollUntil(async () => (await workerPods()).length === 0 || undefined, {
      timeoutMs: 30_000,
      intervalMs: 200,
      description: 'the worker pods to be removed',
    });
    expect(await k.p.db.pod.count({ where: { endpointId } })).toBe(0);
    await pollUntil(async () => (await k.objects()).length === 0 || undefined, {
      timeoutMs: 10_000,
      description: 'worker secrets to be removed',
    });
  }, 60_000);

  it('never removes a busy worker, even past idleTimeout', async () => {
    const id = await run({ text: 'long', sleepMs: 5000 });
    const started = await pollUntil(
      async () => {
        const job = await status(id);
        return job.status === 'IN_PROGRESS' && job.workerId ? job : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'the long job to start' },
    );
    const workerId = started.workerId as string;
    let checks = 0;
    while ((await status(id)).status === 'IN_PROGRESS') {
      await passes(1);
      expect(await k.p.db.pod.count({ where: { id: workerId } })).toBe(1);
      expect((await k.pod(workerId))?.metadata?.deletionTimestamp).toBeUndefined();
      checks += 1;
    }
    expect(checks).toBeGreaterThan(0);
    expect(await status(id)).toMatchObject({ status: 'COMPLETED', workerId });
    await pollUntil(async () => (await workerPods()).length === 0 || undefined, {
      timeoutMs: 30_000,
      intervalMs: 200,
      description: 'scale to 0 again',
    });
  }, 90_000);

  it('stops counting and billing an idle worker at its removal: /health right after it shows the worker neither idle nor running, and its usage ends at the retire time', async () => {
    const health = async () =>
      (
        (await (
          await fetch(`${k.p.jobApiUrl}/v2/${endpointId}/health`, { headers: { authorization: k.p.secret } })
        ).json()) as { workers: Record<string, number> }
      ).workers;
    const id = await run({ text: 'one job' });
    const done = await pollUntil(
      async () => {
        const job = await status(id);
        return job.status === 'COMPLETED' && job;
      },
      { timeoutMs: 60_000, intervalMs: 100, description: 'the job to complete' },
    );
    const workerId = done.workerId as string;
    await pollUntil(async () => (await k.p.db.pod.count({ where: { id: workerId } })) === 0 || undefined, {
      timeoutMs: 30_000,
      intervalMs: 100,
      description: 'the idle worker to be removed',
    });
    // The very next read, while its pod may still be running (and its worker pinging with the token the job-router cached).
    expect(await health()).toMatchObject({ idle: 0, running: 0 });
    const retiredAt = await new WorkerRetirement(k.p.redis, k.p.prefix).retiredAt(endpointId, workerId);
    if (retiredAt === null) throw new Error(`worker ${workerId} was removed without being retired`);
    const stop = await pollUntil(
      async () =>
        [...(await k.p.usageEvents()).values()].find(
          (event) => event['workerId'] === workerId && event['type'] === 'worker.stopped',
        ),
      { timeoutMs: 15_000, description: "the removed worker's stop event" },
    );
    expect(stop['occurredAt']).toBe(new Date(retiredAt).toISOString());
    // Its pod is asked to stop (deleted).
    await pollUntil(
      async () => {
        const pod = await k.pod(workerId);
        return !pod || pod.metadata?.deletionTimestamp !== undefined || undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'the worker pod to be deleted' },
    );
    await passes(2);
    expect(await health()).toMatchObject({ idle: 0, running: 0 });
    const mine = [...(await k.p.usageEvents()).values()]
      .filter((event) => event['workerId'] === workerId)
      .map((event) => event['type'])
      .sort();
    expect(mine).toEqual(['worker.started', 'worker.stopped']);
  }, 90_000);
});
