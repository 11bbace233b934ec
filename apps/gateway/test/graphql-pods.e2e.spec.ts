import { DEFAULT_GPU_TYPES, seedCatalog } from '@runplane/catalog';
import type { PodDto } from '@runplane/contracts';
import { postGraphql } from './fixtures/graphql/client';
import { CTL_MY_PODS, PY_GET_PODS, pyGetPod } from './fixtures/graphql/runpod-texts';
import { bearer, type GatewayHarness, startGateway } from './harness';

const RTX = 'NVIDIA GeForce RTX 4090';
const RTX_NAME = DEFAULT_GPU_TYPES.find((gpu) => gpu.id === RTX)?.displayName;

describe('GraphQL pods: myself { pods } and pod(input: {podId})', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };
  let pod: PodDto;
  let cpuPod: PodDto;

  const createPod = async (secret: string, payload: object): Promise<PodDto> => {
    const res = await gw.inject({ method: 'POST', url: '/v1/pods', headers: bearer(secret), payload });
    expect(res.statusCode).toBe(201);
    return res.json<PodDto>();
  };

  beforeAll(async () => {
    gw = await startGateway('graphql-pods');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    other = await gw.accountWithKey();
    pod = await createPod(owner.secret, {
      name: 'gql-gpu',
      imageName: 'ubuntu:22.04',
      gpuTypeIds: [RTX],
      gpuCount: 1,
      containerDiskInGb: 15,
      volumeInGb: 20,
      volumeMountPath: '/workspace',
      ports: ['8888/http', '22/tcp'],
      env: { A: '1', B: 'two words' },
      dockerStartCmd: ['sleep', '600'],
    });
    // Placed in EU-RO-1, on a machine that published the Pod's SSH port on its public IP.
    await gw.db.pod.update({
      where: { id: pod.id },
      data: { dataCenterId: 'EU-RO-1', publicIp: '203.0.113.7', portMappings: { '22': 40022 } },
    });
    cpuPod = await createPod(owner.secret, {
      name: 'gql-cpu',
      imageName: 'alpine:3',
      computeType: 'CPU',
      cpuFlavorIds: ['cpu3g'],
      vcpuCount: 2,
    });
    const stopped = await gw.inject({
      method: 'POST',
      url: `/v1/pods/${cpuPod.id}/stop`,
      headers: bearer(owner.secret),
    });
    expect(stopped.statusCode).toBe(200);
  });

  afterAll(() => gw.close());

  /** Every field runpod-python's get_pod/get_pods read of the GPU Pod. */
  const expectedGpuPod = () => ({
    id: pod.id,
    containerDiskInGb: 15,
    costPerHr: pod.costPerHr,
    desiredStatus: 'RUNNING',
    dockerArgs: 'sleep 600',
    dockerId: null,
    env: ['A=1', 'B=two words'],
    gpuCount: 1,
    imageName: 'ubuntu:22.04',
    lastStatusChange: pod.lastStatusChange,
    machineId: pod.machineId,
    memoryInGb: pod.memoryInGb,
    name: 'gql-gpu',
    podType: 'RESERVED',
    port: null,
    ports: '8888/http,22/tcp',
    uptimeSeconds: expect.any(Number),
    vcpuCount: pod.vcpuCount,
    volumeInGb: 20,
    volumeMountPath: '/workspace',
    runtime: {
      ports: [
        { ip: null, isIpPublic: false, privatePort: 8888, publicPort: 8888, type: 'http' },
        { ip: '203.0.113.7', isIpPublic: true, privatePort: 22, publicPort: 40022, type: 'tcp' },
      ],
    },
    machine: { gpuDisplayName: RTX_NAME },
  });

  it("answers runpod-python's get_pod, inline, with env as K=V strings, ports as one string and runtime ports", async () => {
    const res = await postGraphql(gw, { key: owner.secret, query: pyGetPod(pod.id) });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { data: { pod: expectedGpuPod() } } });
  });

  it('answers a stopped Pod with no runtime and no uptime', async () => {
    const res = await postGraphql(gw, { key: owner.secret, query: pyGetPod(cpuPod.id) });
    expect(res.body.data?.pod).toMatchObject({
      id: cpuPod.id,
      desiredStatus: 'EXITED',
      gpuCount: 0,
      env: [],
      runtime: null,
      uptimeSeconds: 0,
    });
  });

  it("answers null for an unknown Pod and for another tenant's Pod", async () => {
    for (const [key, id] of [
      [owner.secret, 'nosuchpod'],
      [other.secret, pod.id],
    ] as const) {
      const res = await postGraphql(gw, { key, query: pyGetPod(id) });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { data: { pod: null } } });
    }
  });

  it("lists the account's Pods for runpod-python's get_pods and runpodctl's SSH read", async () => {
    const py = await postGraphql(gw, { key: owner.secret, query: PY_GET_PODS });
    const pods = py.body.data?.myself.pods as { id: string }[];
    expect(pods.map((p) => p.id).sort()).toEqual([pod.id, cpuPod.id].sort());
    expect(pods.find((p) => p.id === pod.id)).toEqual(expectedGpuPod());

    const ctl = await postGraphql(gw, { key: owner.secret, query: CTL_MY_PODS, variables: {} });
    const gpu = (ctl.body.data?.myself.pods as { id: string }[]).find((p) => p.id === pod.id);
    expect(gpu).toMatchObject({
      env: ['A=1', 'B=two words'],
      ports: '8888/http,22/tcp',
      machine: { gpuDisplayName: RTX_NAME, location: 'EU-RO-1' },
      runtime: { ports: expect.arrayContaining([expect.objectContaining({ isIpPublic: true, privatePort: 22 })]) },
    });

    const theirs = await postGraphql(gw, { key: other.secret, query: PY_GET_PODS });
    expect(theirs.body).toEqual({ data: { myself: { pods: [] } } });
  });
});
