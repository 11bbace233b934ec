import { seedCatalog } from '@runplane/catalog';
import type { EndpointDto } from '@runplane/contracts';
import { postGraphql } from './fixtures/graphql/client';
import { CTL_SAVE_ENDPOINT, ctlReplaceEndpointVariables, pyCreateEndpointFull } from './fixtures/graphql/runpod-texts';
import { type GatewayHarness, newServerlessTemplate, restAs, startGateway } from './harness';

describe('GraphQL saveEndpoint with an id (full replace)', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };
  let template: { id: string };
  let template2: { id: string };
  let volume: { id: string };

  const rest = restAs(() => gw);
  const newTemplate = (name: string) => newServerlessTemplate(rest, owner.secret, name);
  /** An endpoint made by runpod-python's create_endpoint with every option (volume, location, CUDA, FlashBoot). */
  const fullEndpoint = async (name: string) => {
    const res = await postGraphql(gw, { key: owner.secret, query: pyCreateEndpointFull(name, template.id, volume.id) });
    return (res.body.data?.saveEndpoint as { id: string }).id;
  };
  const replace = (secret: string, variables: object) =>
    postGraphql(gw, { key: secret, query: CTL_SAVE_ENDPOINT, variables });

  beforeAll(async () => {
    gw = await startGateway('graphql-save-endpoint-replace');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    other = await gw.accountWithKey();
    template = await newTemplate('sls');
    template2 = await newTemplate('sls-2');
    volume = (
      await rest<{ id: string }>(owner.secret, 'POST', '/v1/networkvolumes', {
        name: 'v',
        size: 10,
        dataCenterId: 'EU-RO-1',
      })
    ).body;
  });

  afterAll(() => gw.close());

  it("replaces the endpoint for runpodctl's round trip: what the input leaves out goes back to its default", async () => {
    const id = await fullEndpoint('replace-me');
    const before = (await rest<EndpointDto>(owner.secret, 'GET', `/v1/endpoints/${id}`)).body;
    const res = await replace(owner.secret, ctlReplaceEndpointVariables(id, 'replaced', template.id));
    const catalogCenters = (await gw.db.dataCenter.findMany({ select: { id: true } })).map((dc) => dc.id).sort();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        saveEndpoint: {
          id,
          name: 'replaced',
          templateId: template.id,
          gpuIds: 'ADA_24',
          instanceIds: [],
          computeType: 'GPU',
          networkVolumeId: null,
          networkVolumeIds: [],
          locations: expect.any(String),
          idleTimeout: 11,
          scalerType: 'QUEUE_DELAY',
          scalerValue: 6,
          workersMin: 0,
          workersMax: 4,
          gpuCount: 1,
          minCudaVersion: null,
          executionTimeoutMs: 300000,
          flashBootType: 'OFF',
          modelReferences: [],
        },
      },
    });
    const locations = (res.body.data?.saveEndpoint as { locations: string }).locations;
    expect(locations.split(',').sort()).toEqual(catalogCenters);

    // The same endpoint through /v1 and /v2 shows the new values; the template did not change, nor the version.
    const v1 = await rest<EndpointDto>(owner.secret, 'GET', `/v1/endpoints/${id}`);
    expect(v1.body).toMatchObject({
      id,
      name: 'replaced',
      version: before.version,
      networkVolumeIds: [],
      allowedCudaVersions: [],
      idleTimeout: 11,
      scalerValue: 6,
      workersMax: 4,
      executionTimeoutMs: 300000,
      flashboot: false,
    });
    expect(v1.body.networkVolumeId).toBeUndefined();
    expect(v1.body.dataCenterIds.sort()).toEqual(catalogCenters);
    const v2 = await rest<Record<string, unknown>>(owner.secret, 'GET', `/v2/serverless/${id}`);
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({
      id,
      name: 'replaced',
      networkVolumes: [],
      workers: { min: 0, max: 4, idleTimeout: 11 },
      scaling: { type: 'QUEUE_DELAY', queueDelay: 6 },
      timeout: 300000,
      flashboot: 'OFF',
      gpu: { pools: ['ADA_24'], count: 1, allowedCudaVersions: [], minCudaVersion: null },
    });
  });

  it('gives a new version for a new template, as PATCH /v1/endpoints does, and none when only settings change', async () => {
    const viaGraphql = await fullEndpoint('versions-gql');
    const viaRest = await fullEndpoint('versions-rest');
    const version = async (id: string) =>
      (await rest<EndpointDto>(owner.secret, 'GET', `/v1/endpoints/${id}`)).body.version;
    const start = await version(viaGraphql);
    expect(await version(viaRest)).toBe(start);

    await replace(owner.secret, ctlReplaceEndpointVariables(viaGraphql, 'versions-gql', template.id));
    expect(await version(viaGraphql)).toBe(start);

    const res = await replace(owner.secret, ctlReplaceEndpointVariables(viaGraphql, 'versions-gql', template2.id));
    expect(res.body.data?.saveEndpoint).toMatchObject({ id: viaGraphql, templateId: template2.id });
    const patched = await rest(owner.secret, 'PATCH', `/v1/endpoints/${viaRest}`, { templateId: template2.id });
    expect(patched.status).toBe(200);
    expect(await version(viaGraphql)).toBe(start + 1);
    expect(await version(viaRest)).toBe(start + 1);
    const releases = await rest<{ releases: { version: number }[] }>(
      owner.secret,
      'GET',
      `/v2/serverless/${viaGraphql}/releases`,
    );
    expect(releases.body.releases.map((release) => release.version)).toEqual([start + 1, start]);
  });

  it("answers an unknown or another account's id with HTTP 200 and 'Endpoint not found', changing nothing", async () => {
    const id = await fullEndpoint('not-theirs');
    const theirTemplate = await newServerlessTemplate(rest, other.secret, 'theirs');
    for (const [secret, variables] of [
      [other.secret, ctlReplaceEndpointVariables(id, 'taken', theirTemplate.id)],
      [owner.secret, ctlReplaceEndpointVariables('nosuchendpoint', 'x', template.id)],
    ] as const) {
      const res = await replace(secret, variables);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { data: { saveEndpoint: null }, errors: [{ message: 'Endpoint not found', path: ['saveEndpoint'] }] },
      });
    }
    const v1 = await rest<EndpointDto>(owner.secret, 'GET', `/v1/endpoints/${id}`);
    expect(v1.body).toMatchObject({ name: 'not-theirs', networkVolumeId: volume.id, flashboot: true });
  });

  it('refuses bad settings with the message PATCH /v1/endpoints gives for the same mistake', async () => {
    const id = await fullEndpoint('bad-input');
    const variables = ctlReplaceEndpointVariables(id, 'bad-input', template.id);
    const cases: [object, object][] = [
      [
        { workersMin: 5, workersMax: 2 },
        { workersMin: 5, workersMax: 2 },
      ],
      [{ idleTimeout: 0 }, { idleTimeout: 0 }],
      [{ networkVolumeId: 'nosuchvolume' }, { networkVolumeId: 'nosuchvolume' }],
    ];
    for (const [input, patch] of cases) {
      const res = await replace(owner.secret, { input: { ...variables.input, ...input } });
      const restRes = await rest<{ message: string }>(owner.secret, 'PATCH', `/v1/endpoints/${id}`, patch);
      expect(restRes.status).toBe(400);
      expect(res.body).toEqual({
        data: { saveEndpoint: null },
        errors: [{ message: restRes.body.message, path: ['saveEndpoint'] }],
      });
    }
    const unknownPool = await replace(owner.secret, { input: { ...variables.input, gpuIds: 'NO_SUCH_POOL' } });
    expect(unknownPool.body.errors?.[0]?.message).toBe('gpuIds: unknown GPU pool or type "NO_SUCH_POOL"');
    const v1 = await rest<EndpointDto>(owner.secret, 'GET', `/v1/endpoints/${id}`);
    expect(v1.body).toMatchObject({ name: 'bad-input', idleTimeout: 7, workersMax: 2, flashboot: true });
  });
});
