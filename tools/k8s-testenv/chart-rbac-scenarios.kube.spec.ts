// The chart's scheduler identity proven with real processes: the chart's ServiceAccounts and RBAC are applied to a
// release namespace and a separate workload namespace, a TokenRequest token of the scheduler's ServiceAccount is the
// only credential in the kubeconfig of two scheduler processes (src/main.ts, the chart's scheduler env, Lease
// election), and under it the scheduler runs the Kubernetes scenarios: a GPU Pod with its ports Services and volume
// claim, a network volume and a registry pull secret, serverless workers scaled 0 -> N -> 0, and after the leader is
// killed with SIGKILL the other process takes the Lease and places the next Pod.
import { readFileSync } from 'node:fs';
import { GPU_RESOURCE, type KubeClients, LABELS, MANAGED_SELECTOR, type V1Pod } from '@runplane/kube';
import { pollUntil, type ProcessGroup, signalProcessGroup, type TestNamespace } from '@runplane/testing';
import { parse } from 'yaml';
import { createQueueDelayEndpoint } from '../../apps/scheduler/test/echo-endpoint';
import { H100, h100Pool } from '../../apps/scheduler/test/kube-platform';
import { KwokWorkers } from '../../apps/scheduler/test/kwok-workers';
import { ChartFixture, type ChartIdentity, type ChartLogin, serviceAccountName } from './chart-identity';
import { type ProcessPlatform, startProcessPlatform } from './chart-platform';

const POOL = 'chart-rbac-proc';
const SCHEDULER_SA = serviceAccountName('scheduler');

type Job = { id: string; status: string; output?: { workerId: string } };

describe("the chart's scheduler ServiceAccount token running real scheduler processes", () => {
  const chart = new ChartFixture();
  const schedulers = new Map<string, ProcessGroup>();
  let release: TestNamespace;
  let work: TestNamespace;
  let identity: ChartIdentity;
  let p: ProcessPlatform;
  let admin: KubeClients;
  let login: ChartLogin;
  /** Objects that outlive their Pods: a network volume's claim stays with the volume. */
  let kept: string[] = [];

  beforeAll(async () => {
    release = await chart.namespace('chart-proc');
    work = await chart.namespace('chart-proc-work');
    await chart.nodePools(POOL, [h100Pool(2, 4)]);
    identity = await chart.applyIdentity({ release: release.name, workloads: work.name, pool: POOL });
    login = await chart.schedulerLogin();
    admin = chart.admin();
    p = await startProcessPlatform(POOL, {
      JOB_TAKE_WAIT_MS: '1000',
      JOB_HEARTBEAT_INTERVAL_MS: '2000',
      JOB_SWEEP_INTERVAL_MS: '500',
    });
    // A killed leader never hands the Lease back: the other process takes it once it lapses.
    const schedulerEnv = {
      ...identity.schedulerEnv,
      KUBECONFIG: login.kubeconfigPath,
      SCHEDULER_LEADER_TTL_MS: '3000',
    };
    for (const name of ['scheduler-a', 'scheduler-b'])
      schedulers.set(name, await p.startScheduler({ ...schedulerEnv, KUBE_LEADER_IDENTITY: name }));
    await pollUntil(async () => (await p.db.machine.count({ where: { ready: true } })) === 2 || undefined, {
      timeoutMs: 60_000,
      description: 'the kwok nodes to be mirrored',
    });
  }, 300_000);

  afterAll(async () => {
    if (p) {
      // Deleting every Pod row lets the leader remove their objects before it stops.
      await p.db.pod.deleteMany({});
      await pollUntil(onlyKept, { timeoutMs: 30_000, description: 'every object to be removed' }).catch(
        () => undefined,
      );
      await p.close();
    }
    await chart.close();
  }, 120_000);

  const until = <T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 30_000) =>
    pollUntil(check, { timeoutMs, intervalMs: 100, description: what });
  /** Runplane's objects in the workload namespace, as `kind/name` sorted. */
  async function objects(): Promise<string[]> {
    const query = { namespace: work.name, labelSelector: MANAGED_SELECTOR };
    const [pods, services, claims, secrets] = await Promise.all([
      admin.core.listNamespacedPod(query),
      admin.core.listNamespacedService(query),
      admin.core.listNamespacedPersistentVolumeClaim(query),
      admin.core.listNamespacedSecret(query),
    ]);
    const named = (kind: string, items: { metadata?: { name?: string } }[]) =>
      items.map((o) => `${kind}/${o.metadata?.name}`);
    return [
      ...named('pod', pods.items),
      ...named('service', services.items),
      ...named('pvc', claims.items),
      ...named('secret', secrets.items),
    ].sort();
  }
  const onlyKept = async (): Promise<true | undefined> =>
    JSON.stringify(await objects()) === JSON.stringify(kept) || undefined;
  const kubePod = async (podId: string): Promise<V1Pod | undefined> =>
    (await admin.core.listNamespacedPod({ namespace: work.name, labelSelector: `${LABELS.podId}=${podId}` })).items[0];
  const runningPod = (podId: string) =>
    until(`the pod of ${podId} to run`, async () => {
      const pod = await kubePod(podId);
      return pod?.status?.phase === 'Running' && pod;
    });
  const createPod = async (body: Record<string, unknown>): Promise<string> => {
    const created = await p.v1('POST', '/pods', {
      name: 'chart',
      imageName: 'runpod/base:0.6.2',
      gpuTypeIds: [H100],
      gpuCount: 1,
      ...body,
    });
    expect(created.status).toBe(201);
    return (created.body as { id: string }).id;
  };
  const leaseHolder = async () =>
    (
      await admin.coordination.readNamespacedLease({
        name: identity.schedulerEnv['KUBE_LEADER_LEASE'] ?? '',
        namespace: work.name,
      })
    ).spec?.holderIdentity;

  it("gives the scheduler processes a kubeconfig whose only credential is the ServiceAccount's token", async () => {
    const kubeconfig = parse(readFileSync(login.kubeconfigPath, 'utf8')) as {
      users: { user: Record<string, string> }[];
    };
    expect(kubeconfig.users).toHaveLength(1);
    expect(kubeconfig.users[0]?.user).toEqual({ token: login.token });
    const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
    const whoami = await login.client.create<{
      status: { userInfo: { username: string } };
    }>('/apis/authentication.k8s.io/v1/selfsubjectreviews', review);
    expect(whoami.status.userInfo.username).toBe(`system:serviceaccount:${release.name}:${SCHEDULER_SA}`);
    expect(identity.schedulerEnv).toMatchObject({
      SCHEDULER_DRIVER: 'kubernetes',
      KUBE_NAMESPACE: work.name,
      KUBE_APPLY_PRIORITY_CLASSES: 'false',
    });
    expect(['scheduler-a', 'scheduler-b']).toContain(await until('a scheduler to hold the Lease', leaseHolder));
  });

  it('creates a Pod with nvidia.com/gpu, its ports Services and its volume claim, and deletes them', async () => {
    const id = await createPod({ gpuCount: 2, volumeInGb: 10, ports: ['8888/http', '22/tcp'] });
    const pod = await runningPod(id);
    expect(pod.spec?.nodeName).toMatch(new RegExp(`^${POOL}-h100-`));
    expect(pod.spec?.containers[0]?.resources?.limits?.[GPU_RESOURCE]).toBe('2');
    const ports = await admin.core.readNamespacedService({ name: `rp-${id}-ports`, namespace: work.name });
    expect(ports.spec?.type).toBe('NodePort');
    const nodePort = ports.spec?.ports?.find((port) => port.port === 22)?.nodePort;
    expect(await admin.core.readNamespacedService({ name: `rp-${id}-http`, namespace: work.name })).toMatchObject({
      spec: { type: 'ClusterIP' },
    });
    const shown = await until('GET to show the port mapping', async () => {
      const body = (await p.v1('GET', `/pods/${id}`)).body as { portMappings: Record<string, number> | null };
      return body.portMappings !== null && body;
    });
    expect(shown.portMappings).toEqual({ '22': nodePort });
    expect(await objects()).toEqual([
      `pod/rp-${id}`,
      `pvc/rp-${id}-volume`,
      `service/rp-${id}-http`,
      `service/rp-${id}-ports`,
    ]);
    expect((await p.v1('DELETE', `/pods/${id}`)).status).toBe(204);
    await until("the Pod's objects to be deleted", onlyKept);
  });

  it('mounts a network volume claim and pulls with a registry auth Secret', async () => {
    const volume = await p.v1('POST', '/networkvolumes', { name: 'models', size: 50, dataCenterId: 'EU-RO-1' });
    expect(volume.status).toBe(200);
    const volumeId = (volume.body as { id: string }).id;
    const auth = await p.v1('POST', '/containerregistryauth', { name: 'ghcr', username: 'bob', password: 's3cret' });
    const authId = (auth.body as { id: string }).id;
    const id = await createPod({
      imageName: 'ghcr.io/bob/app:1',
      networkVolumeId: volumeId,
      containerRegistryAuthId: authId,
    });
    const pod = await runningPod(id);
    expect(pod.spec?.imagePullSecrets).toEqual([{ name: `rp-auth-${authId}` }]);
    expect(pod.spec?.volumes).toEqual([
      { name: 'workspace', persistentVolumeClaim: { claimName: `rp-vol-${volumeId}` } },
    ]);
    const claim = await until('the network volume claim to be bound', async () => {
      const read = await admin.core.readNamespacedPersistentVolumeClaim({
        name: `rp-vol-${volumeId}`,
        namespace: work.name,
      });
      return read.status?.phase === 'Bound' && read;
    });
    expect(claim.spec?.accessModes).toEqual(['ReadWriteMany']);
    const secret = await admin.core.readNamespacedSecret({ name: `rp-auth-${authId}`, namespace: work.name });
    expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
    const config = JSON.parse(Buffer.from(secret.data?.['.dockerconfigjson'] ?? '', 'base64').toString('utf8')) as {
      auths: Record<string, unknown>;
    };
    expect(config.auths['ghcr.io']).toMatchObject({ username: 'bob', password: 's3cret' });
    expect((await p.v1('DELETE', `/pods/${id}`)).status).toBe(204);
    kept = [`pvc/rp-vol-${volumeId}`];
    await until('only the network volume claim to remain', onlyKept);
  });

  /** A serverless endpoint of the echo worker that scales from 0 to 2 workers on queue delay. */
  async function createEchoEndpoint(): Promise<string> {
    const template = await p.v1('POST', '/templates', {
      name: 'echo',
      imageName: 'runplane/echo-worker:dev',
      isServerless: true,
      containerDiskInGb: 5,
    });
    return createQueueDelayEndpoint(p.v1, template, { gpuTypeId: H100 });
  }
  const jobApi = (route: string, body?: unknown) =>
    fetch(`${p.jobApiUrl}/v2${route}`, {
      method: body ? 'POST' : 'GET',
      headers: { authorization: p.secret, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
  const submit = async (endpointId: string, input: Record<string, unknown>): Promise<string> => {
    const response = await jobApi(`/${endpointId}/run`, { input });
    expect(response.status).toBe(200);
    return ((await response.json()) as Job).id;
  };
  const completed = (endpointId: string, id: string) =>
    until(
      `job ${id} to complete`,
      async () => {
        const job = (await (await jobApi(`/${endpointId}/status/${id}`)).json()) as Job;
        return job.status === 'COMPLETED' && job;
      },
      60_000,
    );

  it('scales an endpoint 0 -> workersMax worker pods and back to 0 once they are idle', async () => {
    const endpointId = await createEchoEndpoint();
    const workerPods = async () =>
      (
        await admin.core.listNamespacedPod({
          namespace: work.name,
          labelSelector: `${LABELS.endpointId}=${endpointId}`,
        })
      ).items.filter((pod) => !pod.metadata?.deletionTimestamp);
    expect(await workerPods()).toHaveLength(0);
    const workers = new KwokWorkers({ kube: admin, namespace: work.name }, endpointId);
    workers.start();
    try {
      const ids = await Promise.all(
        Array.from({ length: 6 }, (_, index) => submit(endpointId, { text: `job ${index}`, sleepMs: 1500 })),
      );
      const pods = await until('workersMax worker pods to run', async () => {
        const list = await workerPods();
        return list.length === 2 && list.every((pod) => pod.status?.phase === 'Running') && list;
      });
      for (const pod of pods) expect(pod.spec?.containers[0]?.resources?.limits?.[GPU_RESOURCE]).toBe('1');
      const workerIds = pods.map((pod) => pod.metadata?.labels?.[LABELS.podId]);
      for (const id of ids) expect(workerIds).toContain((await completed(endpointId, id)).output?.workerId);
      await until(
        'the idle workers to be removed',
        async () => (await workerPods()).length === 0 && (await p.db.pod.count({ where: { endpointId } })) === 0,
      );
      await until("the workers' token Secrets to be removed", onlyKept);
    } finally {
      await workers.stop();
    }
    expect((await p.v1('DELETE', `/endpoints/${endpointId}`)).status).toBeLessThan(300);
  }, 180_000);

  it('the other process takes the Lease when the leader is killed with SIGKILL, and places the next Pod', async () => {
    const leader = await until('a scheduler to hold the Lease', leaseHolder);
    const standby = leader === 'scheduler-a' ? 'scheduler-b' : 'scheduler-a';
    const killed = schedulers.get(leader ?? '');
    if (!killed) throw new Error(`the Lease is held by ${leader}, not by one of this test's schedulers`);
    signalProcessGroup(killed.pid, 'SIGKILL');
    expect(await killed.exited).toMatchObject({ signal: 'SIGKILL' });
    await until(`${standby} to hold the Lease`, async () => (await leaseHolder()) === standby);
    const id = await createPod({ ports: ['22/tcp'] });
    const pod = await runningPod(id);
    expect(pod.spec?.containers[0]?.resources?.limits?.[GPU_RESOURCE]).toBe('1');
    expect(await objects()).toEqual(expect.arrayContaining([`pod/rp-${id}`, `service/rp-${id}-ports`]));
    expect((await p.v1('DELETE', `/pods/${id}`)).status).toBe(204);
    await until("the new Pod's objects to be deleted", onlyKept);
  }, 90_000);
});
