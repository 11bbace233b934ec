import { DEFAULT_GPU_TYPES, seedCatalog } from '@runplane/catalog';
import type { PodDto } from '@runplane/contracts';
import { newId } from '@runplane/db';
import { postGraphql } from './fixtures/graphql/client';
import {
  CTL_LEGACY_CREATE_POD,
  CTL_LEGACY_GET_CLOUD,
  CTL_LEGACY_GET_PODS,
  CTL_LEGACY_REMOVE_POD,
  CTL_LEGACY_START_POD,
  CTL_LEGACY_STOP_POD,
  CTL_UPDATE_ENDPOINT_TEMPLATE,
  ctlLegacyCreatePodVariables,
} from './fixtures/graphql/runpod-texts';
import { bearer, type GatewayHarness, startGateway } from './harness';

const RTX = 'NVIDIA GeForce RTX 4090';
const RTX_ENTRY = DEFAULT_GPU_TYPES.find((gpu) => gpu.id === RTX);
const RTX_NAME = RTX_ENTRY?.displayName;

type CloudRow = { gpuTypeId: string; minMemory: number | null };

describe("GraphQL texts of runpodctl's serverless update and its legacy pod commands", () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };

  beforeAll(async () => {
    gw = await startGateway('graphql-runpodctl');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    other = await gw.accountWithKey();
  });

  afterAll(() => gw.close());

  const rest = (secret: string, method: 'GET' | 'POST', url: string, payload?: object) =>
    gw.inject({ method, url, headers: bearer(secret), ...(payload ? { payload } : {}) });

  async function serverlessTemplate(name: string): Promise<string> {
    const res = await rest(owner.secret, 'POST', '/v1/templates', { name, imageName: 'worker:1', isServerless: true });
    expect(res.statusCode).toBe(200);
    return res.json<{ id: string }>().id;
  }

  it("switches an endpoint's template for serverless update --template-id, for its owner only", async () => {
    const [first, second] = [await serverlessTemplate('ctl-tpl-1'), await serverlessTemplate('ctl-tpl-2')];
    const created = await rest(owner.secret, 'POST', '/v1/endpoints', {
      name: 'ctl-ep',
      templateId: first,
      gpuTypeIds: [RTX],
    });
    expect(created.statusCode).toBe(200);
    const endpointId = created.json<{ id: string }>().id;
    const variables = { input: { endpointId, templateId: second } };

    const theirs = await postGraphql(gw, { key: other.secret, query: CTL_UPDATE_ENDPOINT_TEMPLATE, variables });
    expect(theirs.body.errors?.[0]?.message).toBe('Endpoint not found');
    const mine = await postGraphql(gw, { key: owner.secret, query: CTL_UPDATE_ENDPOINT_TEMPLATE, variables });
    expect({ status: mine.status, body: mine.body }).toEqual({
      status: 200,
      body: { data: { updateEndpointTemplate: { id: endpointId, templateId: second } } },
    });
    const read = await rest(owner.secret, 'GET', `/v1/endpoints/${endpointId}`);
    expect(read.json<{ templateId: string }>().templateId).toBe(second);
  });

  it('creates, lists, stops, starts and removes a Pod with the legacy texts, the same Pod as /v1/pods and /v2/pods show', async () => {
    const created = await postGraphql(gw, {
      key: owner.secret,
      query: CTL_LEGACY_CREATE_POD,
      variables: ctlLegacyCreatePodVariables('ctl-legacy'),
    });
    const pod = created.body.data?.['podFindAndDeployOnDemand'] as { id: string };
    const v1 = (await rest(owner.secret, 'GET', `/v1/pods/${pod.id}`)).json<PodDto>();
    expect(created.body).toEqual({
      data: {
        podFindAndDeployOnDemand: {
          ...{ id: v1.id, costPerHr: v1.costPerHr, desiredStatus: 'RUNNING' },
          lastStatusChange: v1.lastStatusChange,
        },
      },
    });
    expect(v1).toMatchObject({
      ...{ name: 'ctl-legacy', gpuTypeId: RTX, gpuCount: 1, imageName: 'ubuntu:22.04', containerDiskInGb: 20 },
      ...{ volumeInGb: 1, volumeMountPath: '/runpod', ports: ['8888/http'], env: { A: '1' } },
    });
    const v2 = await rest(owner.secret, 'GET', `/v2/pods/${pod.id}`);
    expect(v2.json()).toMatchObject({
      ...{ id: v1.id, name: 'ctl-legacy', image: 'ubuntu:22.04', gpu: { id: RTX, count: 1 }, disk: 20 },
      ...{ ports: ['8888/http'], env: { A: '1' }, mounts: { persistent: { size: 1, path: '/runpod' } } },
    });

    const listed = await postGraphql(gw, { key: owner.secret, query: CTL_LEGACY_GET_PODS, variables: null });
    expect(listed.body.data?.['myself']).toEqual({
      pods: [
        {
          ...{ id: v1.id, containerDiskInGb: 20, costPerHr: v1.costPerHr, desiredStatus: 'RUNNING', dockerArgs: '' },
          ...{ dockerId: null, env: ['A=1'], gpuCount: 1, imageName: 'ubuntu:22.04' },
          ...{ lastStatusChange: v1.lastStatusChange, machineId: v1.machineId, memoryInGb: v1.memoryInGb },
          ...{ name: 'ctl-legacy', podType: 'RESERVED', port: null, ports: '8888/http' },
          ...{ uptimeSeconds: expect.any(Number), vcpuCount: v1.vcpuCount, volumeInGb: 1, volumeMountPath: '/runpod' },
          machine: { gpuDisplayName: RTX_NAME, location: null },
          runtime: { ports: [{ ip: null, isIpPublic: false, privatePort: 8888, publicPort: 8888, PortType: 'http' }] },
        },
      ],
    });

    const podId = { podId: pod.id };
    const stopped = await postGraphql(gw, { key: owner.secret, query: CTL_LEGACY_STOP_POD, variables: podId });
    expect(stopped.body.data?.['podStop']).toMatchObject({ id: pod.id, desiredStatus: 'EXITED' });
    expect((await rest(owner.secret, 'GET', `/v1/pods/${pod.id}`)).json<PodDto>().desiredStatus).toBe('EXITED');
    const started = await postGraphql(gw, { key: owner.secret, query: CTL_LEGACY_START_POD, variables: podId });
    expect(started.body.data?.['podResume']).toMatchObject({
      ...{ id: pod.id, costPerHr: v1.costPerHr, desiredStatus: 'RUNNING' },
    });

    const refused = await postGraphql(gw, { key: other.secret, query: CTL_LEGACY_REMOVE_POD, variables: podId });
    expect(refused.body).toEqual({
      data: { podTerminate: null },
      errors: [{ message: 'Pod not found', path: ['podTerminate'] }],
    });
    const removed = await postGraphql(gw, { key: owner.secret, query: CTL_LEGACY_REMOVE_POD, variables: podId });
    expect({ status: removed.status, body: removed.body }).toEqual({
      status: 200,
      body: { data: { podTerminate: null } },
    });
    expect((await rest(owner.secret, 'GET', `/v1/pods/${pod.id}`)).statusCode).toBe(404);
  });

  it("answers get cloud with each GPU type's prices, and RAM and vCPUs only where a Pod of that many GPUs fits now", async () => {
    // Four free RTX 4090s in EU-RO-1, secure cloud.
    await gw.db.machine.create({
      data: {
        ...{ id: newId(), name: `node-${newId(6)}`, ready: true, schedulable: true, dataCenterId: 'EU-RO-1' },
        ...{ gpuTypeId: RTX, gpuCount: 4, cpuCount: 64, memoryInGb: 256 },
      },
    });
    const cloud = async (input: object) => {
      const res = await postGraphql(gw, { key: owner.secret, query: CTL_LEGACY_GET_CLOUD, variables: { input } });
      expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 200, errors: undefined });
      const rows = (res.body.data?.['gpuTypes'] as { lowestPrice: CloudRow }[]).map((gpu) => gpu.lowestPrice);
      expect(rows).toHaveLength(DEFAULT_GPU_TYPES.length);
      return rows.filter((row) => row.minMemory !== null);
    };

    // `runpodctl get cloud`: one GPU, either cloud.
    expect(await cloud({ gpuCount: 1, secureCloud: null })).toEqual([
      {
        ...{ gpuTypeId: RTX, gpuName: RTX_NAME, minMemory: 8, minVcpu: 2 },
        ...{ minimumBidPrice: RTX_ENTRY?.secureSpotPrice, uninterruptablePrice: RTX_ENTRY?.securePrice },
      },
    ]);
    // `runpodctl get cloud 2 --mem 16 --vcpu 4 --disk 100`: minimums per GPU, as podFindAndDeployOnDemand reads them.
    const two = { gpuCount: 2, minMemoryInGb: 16, minVcpuCount: 4, secureCloud: null, totalDisk: 100 };
    expect(await cloud(two)).toEqual([expect.objectContaining({ gpuTypeId: RTX, minMemory: 32, minVcpu: 8 })]);
    // Five GPUs fit on no machine; the community cloud has none.
    expect(await cloud({ gpuCount: 5, secureCloud: null })).toEqual([]);
    expect(await cloud({ gpuCount: 1, secureCloud: false })).toEqual([]);
  });
});
