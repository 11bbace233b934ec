import { seedCatalog } from '@runplane/catalog';
import type { PodDto } from '@runplane/contracts';
import { postGraphql } from './fixtures/graphql/client';
import { pyCreateCpuPodFromTemplate, pyCreatePodTemplate } from './fixtures/graphql/runpod-texts';
import { bearer, type GatewayHarness, startGateway } from './harness';

describe("GraphQL deployCpuPod from a template alone (runpod-python's create_pod with template_id)", () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };
  let templateId: string;

  beforeAll(async () => {
    gw = await startGateway('graphql-pod-from-template');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    other = await gw.accountWithKey();
    const saved = await postGraphql(gw, { key: owner.secret, query: pyCreatePodTemplate('gql-cpu-tpl') });
    templateId = (saved.body.data?.['saveTemplate'] as { id: string }).id;
  });

  afterAll(() => gw.close());

  it("creates the CPU Pod with the template's image, env, ports and disks, as /v1/pods shows it", async () => {
    const res = await postGraphql(gw, {
      key: owner.secret,
      query: pyCreateCpuPodFromTemplate('gql-cpu-tpl', templateId),
    });
    const pod = res.body.data?.['deployCpuPod'] as { id: string };
    expect(res.body).toEqual({
      data: {
        deployCpuPod: {
          id: expect.any(String),
          imageName: 'ubuntu:22.04',
          env: ['T=1', 'U=two words'],
          machineId: null,
          machine: { podHostId: null },
        },
      },
    });
    const v1 = (
      await gw.inject({ method: 'GET', url: `/v1/pods/${pod.id}`, headers: bearer(owner.secret) })
    ).json<PodDto>();
    expect(v1).toMatchObject({
      ...{ name: 'gql-cpu-tpl', computeType: 'CPU', cpuFlavorId: 'cpu3c', vcpuCount: 2, templateId },
      ...{ imageName: 'ubuntu:22.04', containerDiskInGb: 12, volumeInGb: 5, ports: ['8888/http', '22/tcp'] },
    });
  });

  it("refuses another account's private template with HTTP 200 and POST /v1/pods' message, creating nothing", async () => {
    const res = await postGraphql(gw, { key: other.secret, query: pyCreateCpuPodFromTemplate('theirs', templateId) });
    const viaRest = await gw.inject({
      method: 'POST',
      url: '/v1/pods',
      headers: bearer(other.secret),
      payload: { computeType: 'CPU', cpuFlavorIds: ['cpu3c'], vcpuCount: 2, imageName: 'ubuntu:22.04', templateId },
    });
    expect(viaRest.statusCode).toBe(404);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: {
        data: { deployCpuPod: null },
        errors: [{ message: viaRest.json<{ message: string }>().message, path: ['deployCpuPod'] }],
      },
    });
    const list = await gw.inject({ method: 'GET', url: '/v1/pods', headers: bearer(other.secret) });
    expect(list.json()).toEqual([]);
  });
});
