// Pods on a real kube-apiserver + kube-scheduler with kwok GPU nodes: placement through POST /v1/pods (priority,
// fallback, no capacity), the objects behind a Pod (Service, PVC, pull secret) and its lifecycle as GET shows it.
import { GENERATION_ANNOTATION, nodeAddress } from '@runplane/kube';
import { pollUntil } from '@runplane/testing';
import { H100, H100_PAIR_POOL, type KubePlatform, RTX, rtxPool, startKubePlatform } from './kube-platform';

const POOL = 'sched-kube-pods';

type Pod = {
  id: string;
  desiredStatus: string;
  machineId: string | null;
  gpu: { id: string; count: number } | null;
  publicIp: string | null;
  portMappings: Record<string, number> | null;
  lastStartedAt: string | null;
  lastStatusChange: string | null;
  message?: string;
};

describe('Pods on Kubernetes (kwok GPU nodes)', () => {
  let k: KubePlatform;
  const h100Node = `${POOL}-h100-0`;
  const rtxNode = `${POOL}-rtx4090-0`;

  beforeAll(async () => {
    k = await startKubePlatform(POOL, [H100_PAIR_POOL, rtxPool(1)]);
  }, 240_000);

  afterAll(async () => {
    await k?.close();
  }, 120_000);

  const create = (body: Record<string, unknown>) =>
    k.p.v1('POST', '/pods', {
      name: 'kube',
      imageName: 'runpod/base:0.6.2',
      gpuTypeIds: [H100, RTX],
      gpuTypePriority: 'custom',
      dataCenterIds: ['EU-RO-1'],
      ...body,
    });
  const get = async (id: string): Promise<Pod> => (await k.p.v1('GET', `/pods/${id}`)).body as Pod;
  const until = <T>(what: string, check: () => Promise<T | undefined | false>) =>
    pollUntil(check, { timeoutMs: 30_000, intervalMs: 100, description: what });

  it('mirrors the pool nodes into Machines with GPU type, data center and GPUs', async () => {
    const machines = await k.p.db.machine.findMany({ orderBy: { id: 'asc' } });
    expect(machines.map((m) => [m.id, m.gpuTypeId, m.gpuCount, m.dataCenterId, m.ready])).toEqual([
      [h100Node, H100, 2, 'EU-RO-1', true],
      [rtxNode, RTX, 1, 'EU-RO-1', true],
    ]);
  });

  let first: string;
  it('binds the first GPU type with room through kube-scheduler, publishes tcp ports, falls back, then refuses', async () => {
    const created = await create({ gpuCount: 2, ports: ['8888/http', '22/tcp'] });
    expect(created.status).toBe(201);
    first = (created.body as Pod).id;
    expect(created.body).toMatchObject({ machineId: h100Node, gpu: { id: H100, count: 2 } });
    const running = await until('the H100 pod to run', async () => {
      const pod = await get(first);
      return pod.portMappings !== null && pod;
    });
    const kubePod = await k.pod(first);
    expect(kubePod?.spec?.nodeName).toBe(h100Node);
    expect(kubePod?.status?.phase).toBe('Running');
    expect(kubePod?.spec?.containers[0]?.resources?.limits?.['nvidia.com/gpu']).toBe('2');
    const service = await k.kube.core.readNamespacedService({ name: `rp-${first}-ports`, namespace: k.namespace });
    const nodePort = service.spec?.ports?.find((port) => port.port === 22)?.nodePort;
    const node = await k.kube.core.readNode({ name: h100Node });
    expect(running).toMatchObject({
      desiredStatus: 'RUNNING',
      portMappings: { '22': nodePort },
      publicIp: nodeAddress(node),
    });
    expect(running.lastStartedAt).not.toBeNull();
    expect(await k.kube.core.readNamespacedService({ name: `rp-${first}-http`, namespace: k.namespace })).toMatchObject(
      { spec: { type: 'ClusterIP' } },
    );

    const fallback = await create({ gpuCount: 1 });
    expect(fallback.status).toBe(201);
    expect(fallback.body).toMatchObject({ machineId: rtxNode, gpu: { id: RTX } });
    const second = (fallback.body as Pod).id;
    await until('the RTX pod to be bound', async () => (await k.pod(second))?.spec?.nodeName === rtxNode);

    const before = await k.p.db.pod.count();
    const objectsBefore = await k.objects();
    const refused = await create({ gpuCount: 1 });
    expect(refused.status).toBe(503);
    expect((refused.body as Pod).message).toMatch(/no longer any instances available/);
    expect(await k.p.db.pod.count()).toBe(before);
    expect(await k.objects()).toEqual(objectsBefore);

    expect((await k.p.v1('DELETE', `/pods/${second}`)).status).toBe(204);
    await until('the RTX pod objects to go', async () => (await k.pod(second)) === undefined);
  });

  it('stop deletes the Kubernetes pod but keeps its volume claim; start runs it again', async () => {
    expect(await k.objects()).toEqual(expect.arrayContaining([`pod/rp-${first}`, `pvc/rp-${first}-volume`]));
    expect((await k.p.v1('POST', `/pods/${first}/stop`)).body).toMatchObject({ desiredStatus: 'EXITED' });
    await until('the pod to be deleted', async () => (await k.pod(first)) === undefined);
    const stopped = await until('GET to show it stopped', async () => {
      const pod = await get(first);
      return pod.portMappings === null && pod;
    });
    expect(stopped).toMatchObject({ desiredStatus: 'EXITED', publicIp: null });
    expect(await k.objects()).toContain(`pvc/rp-${first}-volume`);
    expect(await k.objects()).not.toContain(`service/rp-${first}-ports`);

    expect((await k.p.v1('POST', `/pods/${first}/start`)).body).toMatchObject({ desiredStatus: 'RUNNING' });
    await until('the pod to run again', async () => (await k.pod(first))?.status?.phase === 'Running');
    await until('GET to show ports again', async () => (await get(first)).portMappings !== null);
  });

  it('restart and reset replace the pod with a new generation', async () => {
    const uid = (await k.pod(first))?.metadata?.uid;
    const generation = Number((await k.pod(first))?.metadata?.annotations?.[GENERATION_ANNOTATION]);
    await k.p.v1('POST', `/pods/${first}/restart`);
    const replaced = await until('a new pod of the next generation to run', async () => {
      const pod = await k.pod(first);
      return pod?.metadata?.uid !== uid && pod?.status?.phase === 'Running' && pod;
    });
    expect(Number(replaced.metadata?.annotations?.[GENERATION_ANNOTATION])).toBe(generation + 1);
    await k.p.v1('POST', `/pods/${first}/reset`);
    const reset = await until('the reset pod to run', async () => {
      const pod = await k.pod(first);
      return pod?.metadata?.uid !== replaced.metadata?.uid && pod?.status?.phase === 'Running' && pod;
    });
    expect(Number(reset.metadata?.annotations?.[GENERATION_ANNOTATION])).toBe(generation + 2);
    expect((await k.objects()).filter((o) => o.startsWith('pod/'))).toEqual([`pod/rp-${first}`]);
  });

  it('a network volume becomes a bound ReadWriteMany claim and a registry auth a dockerconfigjson pull secret', async () => {
    expect((await k.p.v1('DELETE', `/pods/${first}`)).status).toBe(204);
    await until('every object of the terminated Pod to go', async () => (await k.objects()).length === 0);
    const volume = await k.p.v1('POST', '/networkvolumes', { name: 'models', size: 50, dataCenterId: 'EU-RO-1' });
    expect(volume.status).toBe(200);
    const volumeId = (volume.body as { id: string }).id;
    const auth = await k.p.v1('POST', '/containerregistryauth', { name: 'ghcr', username: 'bob', password: 's3cret' });
    const authId = (auth.body as { id: string }).id;
    const created = await create({
      gpuCount: 1,
      gpuTypeIds: [RTX],
      imageName: 'ghcr.io/bob/app:1',
      networkVolumeId: volumeId,
      containerRegistryAuthId: authId,
    });
    expect(created.status).toBe(201);
    const id = (created.body as Pod).id;
    const running = await until('the Pod with a volume to run', async () => {
      const pod = await k.pod(id);
      return pod?.status?.phase === 'Running' && pod;
    });
    expect(running.spec?.imagePullSecrets).toEqual([{ name: `rp-auth-${authId}` }]);
    expect(running.spec?.volumes).toEqual([
      { name: 'workspace', persistentVolumeClaim: { claimName: `rp-vol-${volumeId}` } },
    ]);
    const claim = await k.kube.core.readNamespacedPersistentVolumeClaim({
      name: `rp-vol-${volumeId}`,
      namespace: k.namespace,
    });
    expect(claim.spec?.accessModes).toEqual(['ReadWriteMany']);
    expect(claim.status?.phase).toBe('Bound');
    const secret = await k.kube.core.readNamespacedSecret({ name: `rp-auth-${authId}`, namespace: k.namespace });
    expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
    const config = JSON.parse(Buffer.from(secret.data?.['.dockerconfigjson'] ?? '', 'base64').toString('utf8')) as {
      auths: Record<string, { username: string; password: string }>;
    };
    expect(config.auths['ghcr.io']).toMatchObject({ username: 'bob', password: 's3cret' });
    expect(secret.metadata?.labels).toMatchObject({
      'app.kubernetes.io/managed-by': 'runplane',
      'runplane.io/registry-auth-id': authId,
    });

    expect((await k.p.v1('DELETE', `/pods/${id}`)).status).toBe(204);
    // Terminating removes the pod and its pull secret; the network volume's claim stays with the volume.
    await until(
      'the Pod objects to go',
      async () => JSON.stringify(await k.objects()) === JSON.stringify([`pvc/rp-vol-${volumeId}`]),
    );
  });
});
