import { randomBytes } from 'node:crypto';
import { seedCatalog } from '@runplane/catalog';
import { SecretBox } from '@runplane/db';
import { RegistryAuthRepository, RegistryAuthService } from '@runplane/workloads';
import { postGraphql } from './fixtures/graphql/client';
import { pyDeleteRegistryAuth, pySaveRegistryAuth, pyUpdateRegistryAuth } from './fixtures/graphql/runpod-texts';
import { bearer, type GatewayHarness, startGateway } from './harness';

/** The gateway's key, so the spec can open what it sealed (as the scheduler does for pull secrets). */
const KEY = randomBytes(32);

describe('GraphQL saveRegistryAuth, updateRegistryAuth and deleteRegistryAuth', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };

  const get = (secret: string, url: string) => gw.inject({ method: 'GET', url, headers: bearer(secret) });

  beforeAll(async () => {
    gw = await startGateway('graphql-registry-auth', { env: { RUNPLANE_ENCRYPTION_KEY: KEY.toString('hex') } });
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

  it("replaces the username and password for runpod-python's update_container_registry_auth, sealed at rest", async () => {
    const saved = await postGraphql(gw, { key: owner.secret, query: pySaveRegistryAuth('gql-upd') });
    const id = (saved.body.data?.saveRegistryAuth as { id: string }).id;
    const res = await postGraphql(gw, { key: owner.secret, query: pyUpdateRegistryAuth(id) });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: { data: { updateRegistryAuth: { id, name: 'gql-upd' } } },
    });
    expect((await get(owner.secret, `/v1/containerregistryauth/${id}`)).json()).toEqual({
      id,
      name: 'gql-upd',
      username: 'user2',
    });
    expect((await get(owner.secret, `/v2/registries/${id}`)).json()).toMatchObject({ id, name: 'gql-upd' });
    const row = await gw.db.containerRegistryAuth.findUniqueOrThrow({ where: { id } });
    expect(row.passwordEncrypted).toMatch(/^v1\./);
    expect(row.passwordEncrypted).not.toContain('pass2');
    const auths = new RegistryAuthService(new RegistryAuthRepository(gw.db), new SecretBox(KEY));
    expect(await auths.credentials(owner.accountId, id)).toEqual({ username: 'user2', password: 'pass2' });
  });

  it("answers another account's or an unknown id with 'Container registry auth not found', changing nothing", async () => {
    const saved = await postGraphql(gw, { key: owner.secret, query: pySaveRegistryAuth('gql-keep') });
    const id = (saved.body.data?.saveRegistryAuth as { id: string }).id;
    for (const [secret, target] of [
      [other.secret, id],
      [owner.secret, 'nosuchauth'],
    ] as const) {
      const res = await postGraphql(gw, { key: secret, query: pyUpdateRegistryAuth(target) });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: {
          data: { updateRegistryAuth: null },
          errors: [{ message: 'Container registry auth not found', path: ['updateRegistryAuth'] }],
        },
      });
    }
    const auths = new RegistryAuthService(new RegistryAuthRepository(gw.db), new SecretBox(KEY));
    expect(await auths.credentials(owner.accountId, id)).toEqual({ username: 'user1', password: 'pass1' });
  });

  it('refuses an empty username or password with the message POST /v1/containerregistryauth gives', async () => {
    const saved = await postGraphql(gw, { key: owner.secret, query: pySaveRegistryAuth('gql-empty') });
    const id = (saved.body.data?.saveRegistryAuth as { id: string }).id;
    for (const field of ['username', 'password'] as const) {
      const query = pyUpdateRegistryAuth(id).replace(field === 'username' ? '"user2"' : '"pass2"', '""');
      const res = await postGraphql(gw, { key: owner.secret, query });
      const restRes = await gw.inject({
        method: 'POST',
        url: '/v1/containerregistryauth',
        headers: bearer(owner.secret),
        payload: { name: `rest-${field}`, username: 'u', password: 'p', [field]: '' },
      });
      expect(restRes.statusCode).toBe(400);
      expect(res.body).toEqual({
        data: { updateRegistryAuth: null },
        errors: [{ message: restRes.json<{ message: string }>().message, path: ['updateRegistryAuth'] }],
      });
    }
  });
});
