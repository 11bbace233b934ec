import { seedCatalog } from '@runplane/catalog';
import type { PodDto } from '@runplane/contracts';
import { postGraphql } from './fixtures/graphql/client';
import {
  CTL_CREATE_POD,
  ctlCreatePodVariables,
  pyCreateCpuPod,
  pyCreateGpuPod,
  pyCreateGpuPodWithVolume,
} from './fixtures/graphql/runpod-texts';
import { bearer, type GatewayHarness, startGateway } from './harness';

const ED25519 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXGDN/SclOozk1xsDztpmhGiKkkrfQB9SKoO8dSIQQZ me@example.com';

describe('GraphQL podFindAndDeployOnDemand and deployCpuPod', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };

  const rest = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    gw.inject({ method, url, headers: bearer(owner.secret), ...(payload ? { payload } : {}) });

  beforeAll(async () => {
    gw = await startGateway('graphql-pod-create');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    expect((await rest('PUT', '/v2/account/ssh-keys', { keys: [ED25519] })).statusCode).toBe(200);
  });

  afterAll(() => gw.close());

  it("creates runpod-python's GPU Pod from the inline text, the same Pod /v1/pods and /v2/pods show", async () => {
    const res = await postGraphql(gw, { key: owner.secret, query: pyCreateGpuPod('gql-gpu') });
    expect(res.status).toBe(200);
    const pod = res.body.data?.podFindAndDeployOnDemand as { id: string };
    expect(res.body).toEqual({
      data: {
        podFindAndDeployOnDemand: {
          id: expect.any(String),
          imageName: 'ubuntu:22.04',
          env: ['A=1', 'B=two words', `PUBLIC_KEY=${ED25519}`],
          machineId: null,
          machine: { podHostId: null },
        },
      },
    });
    const v1 = (await rest('GET', `/v1/pods/${pod.id}`)).json<PodDto>();
    expect(v1).toMatchObject({
      name: 'gql-gpu',
      gpuTypeId: 'NVIDIA GeForce RTX 4090',
      gpuCount: 1,
      containerDiskInGb: 15,
      volumeInGb: 20,
      volumeMountPath: '/workspace',
      ports: ['8888/http', '22/tcp'],
      env: { A: '1', B: 'two words', PUBLIC_KEY: ED25519 },
    });
    expect((await rest('GET', `/v2/pods/${pod.id}`)).statusCode).toBe(200);
  });

  it("creates runpodctl's GPU Pod from variables and answers every field it reads", async () => {
    const res = await postGraphql(gw, {
      key: owner.secret,
      query: CTL_CREATE_POD,
      variables: ctlCreatePodVariables('gql-ctl'),
    });
    const created = res.body.data?.podFindAndDeployOnDemand as { id: string };
    const v1 = (await rest('GET', `/v1/pods/${created.id}`)).json<PodDto>();
    expect(res.body.data?.podFindAndDeployOnDemand).toEqual({
      id: v1.id,
      name: 'gql-ctl',
      imageName: 'ubuntu:22.04',
      desiredStatus: 'RUNNING',
      costPerHr: v1.costPerHr,
      containerDiskInGb: 15,
      volumeInGb: 20,
      volumeMountPath: '/workspace',
      gpuCount: 1,
      memoryInGb: v1.memoryInGb,
      vcpuCount: v1.vcpuCount,
      ports: '8888/http,22/tcp',
      lastStatusChange: v1.lastStatusChange,
      env: ['A=1', `PUBLIC_KEY=${ED25519}`],
      machine: { gpuDisplayName: 'RTX 4090', location: null },
    });
    expect(v1.cloudType).toBe('SECURE');
  });

  it("creates runpod-python's GPU Pod on a network volume in its data center", async () => {
    const volume = (await rest('POST', '/v1/networkvolumes', { name: 'vol', size: 10, dataCenterId: 'EU-RO-1' })).json<{
      id: string;
    }>();
    const res = await postGraphql(gw, { key: owner.secret, query: pyCreateGpuPodWithVolume('gql-vol', volume.id) });
    const pod = res.body.data?.podFindAndDeployOnDemand as { id: string };
    const v1 = (await rest('GET', `/v1/pods/${pod.id}`)).json<PodDto>();
    expect(v1).toMatchObject({ networkVolumeId: volume.id, volumeMountPath: '/runpod-volume', containerDiskInGb: 10 });
  });

  it("creates runpod-python's default CPU Pod from the runpod-ubuntu template and instance id cpu3c-2-4", async () => {
    const res = await postGraphql(gw, { key: owner.secret, query: pyCreateCpuPod('gql-cpu') });
    const pod = res.body.data?.deployCpuPod as { id: string; imageName: string; env: string[] };
    expect(pod).toMatchObject({ imageName: 'ubuntu:22.04', env: expect.arrayContaining(['C=3']) });
    const v1 = (await rest('GET', `/v1/pods/${pod.id}`)).json<PodDto>();
    expect(v1).toMatchObject({ computeType: 'CPU', cpuFlavorId: 'cpu3c', vcpuCount: 2, templateId: 'runpod-ubuntu' });
  });

  it('refuses what POST /v1/pods refuses with HTTP 200 and the same message', async () => {
    const text = pyCreateGpuPod('gql-bad').replace('NVIDIA GeForce RTX 4090', 'NVIDIA Nonexistent 9000');
    const res = await postGraphql(gw, { key: owner.secret, query: text });
    const restRes = await rest('POST', '/v1/pods', {
      imageName: 'ubuntu:22.04',
      gpuTypeIds: ['NVIDIA Nonexistent 9000'],
    });
    expect(restRes.statusCode).toBe(400);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: {
        data: { podFindAndDeployOnDemand: null },
        errors: [{ message: restRes.json<{ message: string }>().message, path: ['podFindAndDeployOnDemand'] }],
      },
    });
  });
});
