import { seedCatalog } from '@runplane/catalog';
import type { TemplateDto } from '@runplane/contracts';
import { splitDockerArgs } from '../src/graphql/docker-args';
import { postGraphql } from './fixtures/graphql/client';
import { pyCreatePodTemplate, pyCreateServerlessTemplate } from './fixtures/graphql/runpod-texts';
import { bearer, type GatewayHarness, startGateway } from './harness';

describe('GraphQL saveTemplate (create)', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };

  const rest = async <T>(secret: string, method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await gw.inject({ method, url, headers: bearer(secret), ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.json<T>() };
  };

  beforeAll(async () => {
    gw = await startGateway('graphql-save-template');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    other = await gw.accountWithKey();
  });

  afterAll(() => gw.close());

  it("creates runpod-python's Pod template and answers every field it reads", async () => {
    const res = await postGraphql(gw, { key: owner.secret, query: pyCreatePodTemplate('gql-pod-tpl') });
    const saved = res.body.data?.saveTemplate as { id: string };
    expect(res.body).toEqual({
      data: {
        saveTemplate: {
          id: expect.any(String),
          name: 'gql-pod-tpl',
          imageName: 'ubuntu:22.04',
          dockerArgs: 'sleep 600',
          containerDiskInGb: 12,
          volumeInGb: 5,
          volumeMountPath: '/data',
          ports: '8888/http,22/tcp',
          env: [
            { key: 'T', value: '1' },
            { key: 'U', value: 'two words' },
          ],
          isServerless: false,
        },
      },
    });
    const v1 = await rest<TemplateDto>(owner.secret, 'GET', `/v1/templates/${saved.id}`);
    expect(v1.body).toMatchObject({ dockerStartCmd: ['sleep', '600'], isPublic: false, readme: '' });
  });

  it("creates runpod-python's serverless template with no ports, a quoted start command and its registry auth", async () => {
    const auth = await rest<{ id: string }>(owner.secret, 'POST', '/v1/containerregistryauth', {
      name: 'reg2',
      username: 'user1',
      password: 'pass1',
    });
    expect(auth.status).toBe(200);
    const res = await postGraphql(gw, {
      key: owner.secret,
      query: pyCreateServerlessTemplate('gql-sls-tpl', auth.body.id),
    });
    const saved = res.body.data?.saveTemplate as { id: string };
    expect(res.body.data?.saveTemplate).toMatchObject({
      dockerArgs: 'bash -c "echo ready && sleep 600"',
      containerDiskInGb: 8,
      volumeInGb: 0,
      ports: '',
      env: [{ key: 'MODE', value: 'gql' }],
      isServerless: true,
    });
    const v1 = await rest<TemplateDto>(owner.secret, 'GET', `/v1/templates/${saved.id}`);
    expect(v1.body).toMatchObject({
      dockerStartCmd: ['bash', '-c', 'echo ready && sleep 600'],
      ports: [],
      containerRegistryAuthId: auth.body.id,
    });
  });

  it("refuses another tenant's registry auth and a taken name with HTTP 200 and the REST message", async () => {
    const auth = await rest<{ id: string }>(other.secret, 'POST', '/v1/containerregistryauth', {
      name: 'theirs',
      username: 'u',
      password: 'p',
    });
    for (const query of [pyCreateServerlessTemplate('gql-x', auth.body.id), pyCreatePodTemplate('gql-pod-tpl')]) {
      const res = await postGraphql(gw, { key: owner.secret, query });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ saveTemplate: null });
      expect(res.body.errors?.[0]?.message).toEqual(expect.any(String));
    }
    const dup = await rest<{ message: string }>(owner.secret, 'POST', '/v1/templates', {
      name: 'gql-pod-tpl',
      imageName: 'ubuntu:22.04',
    });
    expect(dup.status).toBe(400);
    const gql = await postGraphql(gw, { key: owner.secret, query: pyCreatePodTemplate('gql-pod-tpl') });
    expect(gql.body.errors?.[0]?.message).toBe(dup.body.message);
  });

  it('splits dockerArgs as a shell splits words', () => {
    expect(splitDockerArgs(`bash -c "echo \\"hi\\" && sleep 1"`)).toEqual(['bash', '-c', 'echo "hi" && sleep 1']);
    expect(splitDockerArgs(`  python  'a b'  c\\ d ""  `)).toEqual(['python', 'a b', 'c d', '']);
    expect(() => splitDockerArgs('echo "open')).toThrow('dockerArgs: unterminated quote');
  });
});
