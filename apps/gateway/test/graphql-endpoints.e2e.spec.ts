import { seedCatalog } from '@runplane/catalog';
import type { EndpointDto } from '@runplane/contracts';
import { postGraphql } from './fixtures/graphql/client';
import { PY_GET_ENDPOINTS } from './fixtures/graphql/runpod-texts';
import { bearer, type GatewayHarness, startGateway } from './harness';

describe('GraphQL myself { endpoints }', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };

  const ok = async <T>(secret: string, url: string, payload: object): Promise<T> => {
    const res = await gw.inject({ method: 'POST', url, headers: bearer(secret), payload });
    expect({ url, status: res.statusCode, body: res.statusCode === 200 ? null : res.body }).toEqual({
      url,
      status: 200,
      body: null,
    });
    return res.json<T>();
  };

  beforeAll(async () => {
    gw = await startGateway('graphql-endpoints');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    other = await gw.accountWithKey();
  });

  afterAll(() => gw.close());

  it("answers runpod-python's get_endpoints with pools as gpuIds, env as {key, value} and the volume", async () => {
    const template = await ok<{ id: string }>(owner.secret, '/v1/templates', {
      name: 'worker',
      imageName: 'runplane/worker:1',
      isServerless: true,
      env: { MODE: 'gql' },
    });
    const volume = await ok<{ id: string }>(owner.secret, '/v1/networkvolumes', {
      name: 'models',
      size: 10,
      dataCenterId: 'EU-RO-1',
    });
    const endpoint = await ok<EndpointDto>(owner.secret, '/v1/endpoints', {
      templateId: template.id,
      name: 'gql-ep',
      gpuTypeIds: ['NVIDIA GeForce RTX 4090', 'NVIDIA L4', 'NVIDIA H100 80GB HBM3'],
      dataCenterIds: ['EU-RO-1'],
      networkVolumeId: volume.id,
      idleTimeout: 7,
      scalerType: 'REQUEST_COUNT',
      scalerValue: 2,
      workersMin: 1,
      workersMax: 2,
    });
    const res = await postGraphql(gw, { key: owner.secret, query: PY_GET_ENDPOINTS });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: {
        data: {
          myself: {
            endpoints: [
              {
                aiKey: null,
                gpuIds: 'ADA_24,ADA_80_PRO',
                id: endpoint.id,
                idleTimeout: 7,
                name: 'gql-ep',
                networkVolumeId: volume.id,
                locations: 'EU-RO-1',
                scalerType: 'REQUEST_COUNT',
                scalerValue: 2,
                templateId: template.id,
                type: 'QUEUE',
                userId: owner.accountId,
                version: endpoint.version,
                workersMax: 2,
                workersMin: 1,
                workersStandby: 1,
                gpuCount: 1,
                env: [{ key: 'MODE', value: 'gql' }],
                createdAt: endpoint.createdAt,
                networkVolume: { id: volume.id, dataCenterId: 'EU-RO-1' },
              },
            ],
          },
        },
      },
    });
  });

  it("shows another tenant none of the account's endpoints", async () => {
    const res = await postGraphql(gw, { key: other.secret, query: PY_GET_ENDPOINTS });
    expect(res.body).toEqual({ data: { myself: { endpoints: [] } } });
  });
});
