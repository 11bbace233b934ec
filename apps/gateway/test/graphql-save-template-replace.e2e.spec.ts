import { seedCatalog } from '@runplane/catalog';
import type { EndpointDto, TemplateDto } from '@runplane/contracts';
import { postGraphql } from './fixtures/graphql/client';
import { FLASH_SAVE_TEMPLATE, pyCreatePodTemplate } from './fixtures/graphql/runpod-texts';
import { bearer, type GatewayHarness, startGateway } from './harness';

describe('GraphQL saveTemplate with an id (full replace)', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };

  const rest = async <T>(secret: string, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) => {
    const res = await gw.inject({ method, url, headers: bearer(secret), ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.json<T>() };
  };
  /** A template made by runpod-python's create_template (ports, env, volume, start command). */
  const pyTemplate = async (name: string) => {
    const res = await postGraphql(gw, { key: owner.secret, query: pyCreatePodTemplate(name) });
    return (res.body.data?.saveTemplate as { id: string }).id;
  };
  const replace = (secret: string, input: object) =>
    postGraphql(gw, { key: secret, query: FLASH_SAVE_TEMPLATE, variables: { input } });

  beforeAll(async () => {
    gw = await startGateway('graphql-save-template-replace');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    other = await gw.accountWithKey();
  });

  afterAll(() => gw.close());

  it("replaces the template for flash's update by id: what the input leaves out goes back to its default", async () => {
    const id = await pyTemplate('replace-me');
    const res = await replace(owner.secret, {
      id,
      name: 'replaced',
      imageName: 'ubuntu:24.04',
      dockerArgs: 'bash -c "sleep 900"',
      env: [{ key: 'V', value: '2' }],
      readme: '# new',
    });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: {
        data: {
          saveTemplate: {
            id,
            containerDiskInGb: 50,
            dockerArgs: 'bash -c "sleep 900"',
            env: [{ key: 'V', value: '2' }],
            imageName: 'ubuntu:24.04',
            name: 'replaced',
            readme: '# new',
          },
        },
      },
    });
    const v1 = await rest<TemplateDto>(owner.secret, 'GET', `/v1/templates/${id}`);
    expect(v1.body).toMatchObject({
      id,
      name: 'replaced',
      imageName: 'ubuntu:24.04',
      dockerStartCmd: ['bash', '-c', 'sleep 900'],
      env: { V: '2' },
      containerDiskInGb: 50,
      volumeInGb: 20,
      volumeMountPath: '/workspace',
      ports: ['8888/http', '22/tcp'],
      isServerless: false,
      readme: '# new',
    });
    const v2 = await rest<Record<string, unknown>>(owner.secret, 'GET', `/v2/templates/${id}`);
    expect(v2.body).toMatchObject({
      id,
      name: 'replaced',
      image: 'ubuntu:24.04',
      args: 'bash -c "sleep 900"',
      disk: 50,
      env: { V: '2' },
      mounts: { persistent: { size: 20, path: '/workspace' } },
    });
  });

  it('rolls endpoints on the template to a new version only when what workers run changes', async () => {
    const created = await rest<{ id: string }>(owner.secret, 'POST', '/v1/templates', {
      name: 'sls-roll',
      imageName: 'runplane/accept:1',
      isServerless: true,
      ports: [],
      volumeInGb: 0,
    });
    const endpoint = await rest<EndpointDto>(owner.secret, 'POST', '/v1/endpoints', { templateId: created.body.id });
    expect(endpoint.status).toBe(200);
    const version = async () =>
      (await rest<EndpointDto>(owner.secret, 'GET', `/v1/endpoints/${endpoint.body.id}`)).body.version;
    const start = await version();
    const settings = {
      id: created.body.id,
      name: 'sls-roll',
      imageName: 'runplane/accept:1',
      isServerless: true,
      ports: '',
      volumeInGb: 0,
    };

    const readmeOnly = await replace(owner.secret, { ...settings, readme: 'docs only' });
    expect(readmeOnly.body.data?.saveTemplate).toMatchObject({ readme: 'docs only' });
    expect(await version()).toBe(start);

    const newImage = await replace(owner.secret, { ...settings, imageName: 'runplane/accept:2' });
    expect(newImage.body.data?.saveTemplate).toMatchObject({ imageName: 'runplane/accept:2', readme: '' });
    expect(await version()).toBe(start + 1);
  });

  it("answers another account's template (private or public) and an unknown id with 'Template not found'", async () => {
    const id = await pyTemplate('mine');
    const publicOne = await rest<{ id: string }>(owner.secret, 'POST', '/v1/templates', {
      name: 'shared',
      imageName: 'ubuntu:22.04',
      isPublic: true,
    });
    for (const [secret, target] of [
      [other.secret, id],
      [other.secret, publicOne.body.id],
      [owner.secret, 'nosuchtemplate'],
    ] as const) {
      const res = await replace(secret, { id: target, name: 'taken', imageName: 'alpine:3' });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { data: { saveTemplate: null }, errors: [{ message: 'Template not found', path: ['saveTemplate'] }] },
      });
    }
    const v1 = await rest<TemplateDto>(owner.secret, 'GET', `/v1/templates/${id}`);
    expect(v1.body).toMatchObject({ name: 'mine', imageName: 'ubuntu:22.04', volumeInGb: 5 });
  });

  it('refuses a taken name, a foreign registry auth and a new isServerless with the REST message, changing nothing', async () => {
    const id = await pyTemplate('keep-me');
    await pyTemplate('taken-name');
    const theirAuth = await rest<{ id: string }>(other.secret, 'POST', '/v1/containerregistryauth', {
      name: 'theirs',
      username: 'u',
      password: 'p',
    });
    const cases: [object, object][] = [
      [{ name: 'taken-name' }, { name: 'taken-name' }],
      [{ containerRegistryAuthId: theirAuth.body.id }, { containerRegistryAuthId: theirAuth.body.id }],
      [{ containerDiskInGb: -1 }, { containerDiskInGb: -1 }],
    ];
    for (const [input, patch] of cases) {
      const res = await replace(owner.secret, { id, name: 'keep-me', imageName: 'ubuntu:22.04', ...input });
      const restRes = await rest<{ message: string }>(owner.secret, 'PATCH', `/v1/templates/${id}`, patch);
      expect(restRes.status).toBe(400);
      expect(res.body).toEqual({
        data: { saveTemplate: null },
        errors: [{ message: restRes.body.message, path: ['saveTemplate'] }],
      });
    }
    const serverless = await replace(owner.secret, {
      id,
      name: 'keep-me',
      imageName: 'ubuntu:22.04',
      isServerless: true,
    });
    expect(serverless.body.errors).toEqual([
      { message: 'isServerless: fixed when the template was created (false)', path: ['saveTemplate'] },
    ]);
    const v1 = await rest<TemplateDto>(owner.secret, 'GET', `/v1/templates/${id}`);
    expect(v1.body).toMatchObject({
      name: 'keep-me',
      volumeInGb: 5,
      volumeMountPath: '/data',
      env: { T: '1', U: 'two words' },
    });
  });
});
