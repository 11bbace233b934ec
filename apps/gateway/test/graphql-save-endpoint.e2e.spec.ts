import { seedCatalog } from '@runplane/catalog';
import type { EndpointDto } from '@runplane/contracts';
import { postGraphql } from './fixtures/graphql/client';
import {
  CTL_SAVE_ENDPOINT,
  ctlSaveEndpointVariables,
  pyCreateEndpointDefaults,
  pyCreateEndpointFull,
  pyUpdateEndpointTemplate,
} from './fixtures/graphql/runpod-texts';
import { type GatewayHarness, newServerlessTemplate, restAs, startGateway } from './harness';

describe('GraphQL saveEndpoint (create) and updateEndpointTemplate', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };
  let template: { id: string };
  let template2: { id: string };
  let otherTemplate: { id: string };

  const rest = restAs(() => gw);
  const newTemplate = (secret: string, name: string) => newServerlessTemplate(rest, secret, name);

  beforeAll(async () => {
    gw = await startGateway('graphql-save-endpoint');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    other = await gw.accountWithKey();
    template = await newTemplate(owner.secret, 'sls');
    template2 = await newTemplate(owner.secret, 'sls-2');
    otherTemplate = await newTemplate(other.secret, 'theirs');
  });

  afterAll(() => gw.close());

  it("creates runpod-python's endpoint with its defaults and answers every field it reads", async () => {
    const res = await postGraphql(gw, {
      key: owner.secret,
      query: pyCreateEndpointDefaults('gql-ep-default', template.id),
    });
    const saved = res.body.data?.saveEndpoint as { id: string };
    const v1 = await rest<EndpointDto>(owner.secret, 'GET', `/v1/endpoints/${saved.id}`);
    expect(v1.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        saveEndpoint: {
          id: v1.body.id,
          name: 'gql-ep-default',
          templateId: template.id,
          gpuIds: 'AMPERE_16',
          networkVolumeId: null,
          locations: v1.body.dataCenterIds.join(','),
          idleTimeout: 5,
          scalerType: 'QUEUE_DELAY',
          scalerValue: 4,
          workersMin: 0,
          workersMax: 3,
          allowedCudaVersions: v1.body.allowedCudaVersions.join(','),
          gpuCount: 1,
          flashBootType: v1.body.flashboot ? 'FLASHBOOT' : 'OFF',
        },
      },
    });
    expect(v1.body.gpuTypeIds.sort()).toEqual(
      ['NVIDIA RTX A4000', 'NVIDIA RTX 4000 Ada Generation', 'NVIDIA RTX 2000 Ada Generation'].sort(),
    );
  });

  it("creates runpod-python's endpoint with every option: pools, volume, location, CUDA versions, FlashBoot", async () => {
    const volume = (
      await rest<{ id: string }>(owner.secret, 'POST', '/v1/networkvolumes', {
        name: 'v',
        size: 10,
        dataCenterId: 'EU-RO-1',
      })
    ).body;
    const res = await postGraphql(gw, {
      key: owner.secret,
      query: pyCreateEndpointFull('gql-ep', template.id, volume.id),
    });
    expect(res.body.data?.saveEndpoint).toEqual({
      id: expect.any(String),
      name: 'gql-ep',
      templateId: template.id,
      gpuIds: 'ADA_24,ADA_80_PRO',
      networkVolumeId: volume.id,
      locations: 'EU-RO-1',
      idleTimeout: 7,
      scalerType: 'REQUEST_COUNT',
      scalerValue: 2,
      workersMin: 0,
      workersMax: 2,
      allowedCudaVersions: '12.4,12.5',
      gpuCount: 1,
      flashBootType: 'FLASHBOOT',
    });
  });

  it("creates runpodctl's endpoint from variables and answers every field it reads", async () => {
    const res = await postGraphql(gw, {
      key: owner.secret,
      query: CTL_SAVE_ENDPOINT,
      variables: ctlSaveEndpointVariables('gql-ctl-ep', template.id),
    });
    expect(res.body.data?.saveEndpoint).toEqual({
      id: expect.any(String),
      name: 'gql-ctl-ep',
      templateId: template.id,
      gpuIds: 'ADA_24',
      instanceIds: [],
      computeType: 'GPU',
      networkVolumeId: null,
      networkVolumeIds: [],
      locations: expect.any(String),
      idleTimeout: 9,
      scalerType: 'REQUEST_COUNT',
      scalerValue: 3,
      workersMin: 0,
      workersMax: 2,
      gpuCount: 1,
      minCudaVersion: null,
      executionTimeoutMs: 120000,
      flashBootType: 'FLASHBOOT',
      modelReferences: [],
    });
  });

  it("refuses an unknown pool, a bad scalerType and another tenant's template with HTTP 200 and a message", async () => {
    const cases: [string, string][] = [
      [
        pyCreateEndpointDefaults('bad-pool', template.id).replace('AMPERE_16', 'NO_SUCH_POOL'),
        'gpuIds: unknown GPU pool or type "NO_SUCH_POOL"',
      ],
      [pyCreateEndpointDefaults('bad-scaler', template.id).replace('"QUEUE_DELAY"', '"FASTEST"'), 'scalerType'],
      [pyCreateEndpointDefaults('not-mine', otherTemplate.id), `templateId: template ${otherTemplate.id} not found`],
    ];
    for (const [query, message] of cases) {
      const res = await postGraphql(gw, { key: owner.secret, query });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ saveEndpoint: null });
      expect(res.body.errors?.[0]?.message).toContain(message);
    }
    // The same message as POST /v1/endpoints for the same mistake.
    const restRes = await rest<{ message: string }>(owner.secret, 'POST', '/v1/endpoints', {
      templateId: otherTemplate.id,
    });
    expect(restRes.body.message).toBe(`templateId: template ${otherTemplate.id} not found`);
  });

  it("switches the endpoint's template for runpod-python's update_endpoint_template, for its owner only", async () => {
    const created = await postGraphql(gw, {
      key: owner.secret,
      query: pyCreateEndpointDefaults('switch', template.id),
    });
    const id = (created.body.data?.saveEndpoint as { id: string }).id;
    const res = await postGraphql(gw, { key: owner.secret, query: pyUpdateEndpointTemplate(template2.id, id) });
    expect(res.body).toEqual({ data: { updateEndpointTemplate: { id, templateId: template2.id } } });
    expect((await rest<EndpointDto>(owner.secret, 'GET', `/v1/endpoints/${id}`)).body.templateId).toBe(template2.id);

    const theirs = await postGraphql(gw, { key: other.secret, query: pyUpdateEndpointTemplate(otherTemplate.id, id) });
    expect(theirs.body).toEqual({
      data: { updateEndpointTemplate: null },
      errors: [{ message: 'Endpoint not found', path: ['updateEndpointTemplate'] }],
    });
  });
});
