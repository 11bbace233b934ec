import { seedCatalog } from '@runplane/catalog';
import { postGraphql } from './fixtures/graphql/client';
import { pyDeleteRegistryAuth, pySaveRegistryAuth } from './fixtures/graphql/runpod-texts';
import { bearer, type GatewayHarness, startGateway } from './harness';

describe('GraphQL saveRegistryAuth and deleteRegistryAuth', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };

  const get = (secret: string, url: string) => gw.inject({ method: 'GET', url, headers: bearer(secret) });

  beforeAll(async () => {
    gw = await startGateway('graphql-registry-auth');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    other = await gw.accountWithKey();
  });

  afterAll(() => gw.close());

  it("creates runpod-python's registry auth, visible in /v1/containerregistryauth, and deletes it", async () => {
    const res = await postGraphql(gw, { key: owner.secret, query: pySaveRegistryAuth('gql-reg') });
    expect(res.body).toEqual({ data: { saveRegistryAuth: { id: expect.any(String), name: 'gql-reg' } } });
    const id = (res.body.data?.saveRegistryAuth as { id: string }).id;
    expect((await get(owner.secret, `/v1/containerregistryauth/${id}`)).json()).toMatchObject({ id, name: 'gql-reg' });

    const theirs = await postGraphql(gw, { key: other.secret, query: pyDeleteRegistryAuth(id) });
    expect(theirs.body).toEqual({
      data: { deleteRegistryAuth: null },
      errors: [{ message: 'Container registry auth not found', path: ['deleteRegistryAuth'] }],
    });

    const deleted = await postGraphql(gw, { key: owner.secret, query: pyDeleteRegistryAuth(id) });
    expect({ status: deleted.status, body: deleted.body }).toEqual({
      status: 200,
      body: { data: { deleteRegistryAuth: null } },
    });
    expect((await get(owner.secret, `/v1/containerregistryauth/${id}`)).statusCode).toBe(404);
  });

  it('refuses a taken name with HTTP 200 and the REST message', async () => {
    await postGraphql(gw, { key: owner.secret, query: pySaveRegistryAuth('dup') });
    const res = await postGraphql(gw, { key: owner.secret, query: pySaveRegistryAuth('dup') });
    expect(res.body).toEqual({
      data: { saveRegistryAuth: null },
      errors: [{ message: 'name: a container registry auth named "dup" already exists', path: ['saveRegistryAuth'] }],
    });
  });
});
