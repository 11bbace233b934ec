import { DEFAULT_PUBLIC_TEMPLATES, seedCatalog } from '@runplane/catalog';
import type { TemplateDto } from '@runplane/contracts';
import { postGraphql } from './fixtures/graphql/client';
import { CTL_GET_TEMPLATE, CTL_MY_TEMPLATES, CTL_POD_TEMPLATES } from './fixtures/graphql/runpod-texts';
import { bearer, type GatewayHarness, startGateway } from './harness';

describe('GraphQL podTemplates and podTemplate', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };
  let shared: TemplateDto;
  let secret: TemplateDto;

  const createTemplate = async (key: string, payload: object): Promise<TemplateDto> => {
    const res = await gw.inject({ method: 'POST', url: '/v1/templates', headers: bearer(key), payload });
    expect(res.statusCode).toBe(200);
    return res.json<TemplateDto>();
  };

  beforeAll(async () => {
    gw = await startGateway('graphql-templates');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    other = await gw.accountWithKey();
    shared = await createTemplate(other.secret, {
      name: 'community-comfy',
      imageName: 'someone/comfy:1',
      isPublic: true,
      ports: ['8188/http', '22/tcp'],
      env: { MODE: 'ui' },
      readme: '# Comfy',
    });
    secret = await createTemplate(other.secret, { name: 'private-one', imageName: 'someone/private:1' });
  });

  afterAll(() => gw.close());

  const list = async (isRunpod: boolean) => {
    const res = await postGraphql(gw, {
      key: owner.secret,
      query: CTL_POD_TEMPLATES,
      variables: { input: { isRunpod } },
    });
    expect(res.status).toBe(200);
    return res.body.data?.podTemplates as { id: string; isRunpod: boolean }[];
  };

  it("answers runpodctl's official list ({isRunpod: true}) with the catalog's templates", async () => {
    const official = await list(true);
    expect(official.map((t) => t.id).sort()).toEqual(DEFAULT_PUBLIC_TEMPLATES.map((t) => t.id).sort());
    const ubuntu = DEFAULT_PUBLIC_TEMPLATES.find((t) => t.id === 'runpod-ubuntu');
    expect(official.find((t) => t.id === 'runpod-ubuntu')).toEqual({
      id: 'runpod-ubuntu',
      name: ubuntu?.name,
      imageName: ubuntu?.imageName,
      isServerless: ubuntu?.isServerless,
      isPublic: true,
      isRunpod: true,
      category: ubuntu?.category,
      containerDiskInGb: ubuntu?.containerDiskInGb,
      volumeInGb: ubuntu?.volumeInGb,
      volumeMountPath: ubuntu?.volumeMountPath,
    });
  });

  it("answers runpodctl's community list ({isRunpod: false}) with public templates only", async () => {
    const community = await list(false);
    expect(community.map((t) => t.id)).toEqual([shared.id]);
  });

  it("answers runpodctl's template backfill with ports as a string and env as {key, value}", async () => {
    const res = await postGraphql(gw, { key: owner.secret, query: CTL_GET_TEMPLATE, variables: { id: shared.id } });
    expect(res.body).toEqual({
      data: {
        podTemplate: {
          id: shared.id,
          name: 'community-comfy',
          imageName: 'someone/comfy:1',
          isServerless: false,
          isPublic: true,
          isRunpod: false,
          category: shared.category,
          ports: '8188/http,22/tcp',
          portsConfig: [],
          env: [{ key: 'MODE', value: 'ui' }],
          containerDiskInGb: shared.containerDiskInGb,
          containerRegistryAuthId: null,
          volumeInGb: shared.volumeInGb,
          volumeMountPath: shared.volumeMountPath,
          readme: '# Comfy',
        },
      },
    });
  });

  it("answers runpodctl's myself { podTemplates { id readme } } backfill with the caller's own templates", async () => {
    const mine = await createTemplate(owner.secret, { name: 'mine', imageName: 'me/mine:1', readme: 'hello' });
    const res = await postGraphql(gw, { key: owner.secret, query: CTL_MY_TEMPLATES, variables: {} });
    expect(res.body).toEqual({ data: { myself: { podTemplates: [{ id: mine.id, readme: 'hello' }] } } });
  });

  it("answers null for an unknown template and for another tenant's private one", async () => {
    for (const id of ['nosuchtemplate', secret.id]) {
      const res = await postGraphql(gw, { key: owner.secret, query: CTL_GET_TEMPLATE, variables: { id } });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { data: { podTemplate: null } } });
    }
  });

  it('refuses the backfill without its required id variable with HTTP 200 and a message', async () => {
    const res = await postGraphql(gw, { key: owner.secret, query: CTL_GET_TEMPLATE, variables: {} });
    expect(res.status).toBe(200);
    expect(res.body.errors?.[0]?.message).toBe('Variable "$id" of required type "String!" was not provided.');
  });
});
