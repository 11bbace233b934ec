import type { ContainerRegistryAuthDto } from '@runplane/contracts';
import { bearer, type GatewayHarness, startGateway } from './harness';

const PASSWORD = 'registry-password-that-must-stay-secret';

describe('v1 /containerregistryauth', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };

  beforeAll(async () => {
    gw = await startGateway('registry-auth');
    owner = await gw.accountWithKey('ALL');
  });
  afterAll(() => gw.close());

  const create = (name: string, secret = owner.secret) =>
    gw.inject({
      method: 'POST',
      url: '/v1/containerregistryauth',
      headers: bearer(secret),
      payload: { name, username: 'robot', password: PASSWORD },
    });

  it('stores the password encrypted and never returns it', async () => {
    const created = await create('docker hub');
    expect(created.statusCode).toBe(200);
    const dto = created.json() as ContainerRegistryAuthDto;
    expect(dto).toEqual({ id: expect.any(String), name: 'docker hub', username: 'robot' });

    const row = await gw.db.containerRegistryAuth.findUniqueOrThrow({ where: { id: dto.id } });
    expect(row.passwordEncrypted).not.toBe(PASSWORD);
    expect(row.passwordEncrypted).not.toContain(PASSWORD);
    expect(row.passwordEncrypted).not.toContain(Buffer.from(PASSWORD).toString('base64'));
    expect(row.passwordEncrypted).toMatch(/^v1\./);

    const listed = await gw.inject({ method: 'GET', url: '/v1/containerregistryauth', headers: bearer(owner.secret) });
    const got = await gw.inject({
      method: 'GET',
      url: `/v1/containerregistryauth/${dto.id}`,
      headers: bearer(owner.secret),
    });
    for (const res of [created, listed, got]) {
      expect(res.body).not.toContain(PASSWORD);
      expect(res.body).not.toContain(row.passwordEncrypted);
      expect(res.body).not.toContain('password');
    }
    expect(listed.json()).toEqual([dto]);
    expect(got.json()).toEqual(dto);
  });

  it('rejects a duplicate name and missing fields with 400 naming the field', async () => {
    await create('quay');
    const duplicate = await create('quay');
    expect(duplicate.statusCode).toBe(400);
    expect(duplicate.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'name: a container registry auth named "quay" already exists',
    });
    expect(await gw.db.containerRegistryAuth.count({ where: { accountId: owner.accountId, name: 'quay' } })).toBe(1);
    const missing = await gw.inject({
      method: 'POST',
      url: '/v1/containerregistryauth',
      headers: bearer(owner.secret),
      payload: { name: 'x', username: 'robot' },
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toMatch(/^password: /);
  });

  it("hides another account's auths (404) and deletes with 204", async () => {
    const other = await gw.accountWithKey('ALL');
    const theirs = (await create('theirs', other.secret)).json() as ContainerRegistryAuthDto;
    const peek = await gw.inject({
      method: 'GET',
      url: `/v1/containerregistryauth/${theirs.id}`,
      headers: bearer(owner.secret),
    });
    expect(peek.statusCode).toBe(404);
    expect(peek.json()).toMatchObject({ message: 'Container registry auth not found' });
    const steal = await gw.inject({
      method: 'DELETE',
      url: `/v1/containerregistryauth/${theirs.id}`,
      headers: bearer(owner.secret),
    });
    expect(steal.statusCode).toBe(404);
    const del = await gw.inject({
      method: 'DELETE',
      url: `/v1/containerregistryauth/${theirs.id}`,
      headers: bearer(other.secret),
    });
    expect(del.statusCode).toBe(204);
    expect(await gw.db.containerRegistryAuth.count({ where: { id: theirs.id } })).toBe(0);
  });

  it('refuses to delete an auth a template or a live Pod uses, naming them; terminated Pods do not count', async () => {
    const auth = (await create('in-use')).json() as ContainerRegistryAuthDto;
    const template = await gw.inject({
      method: 'POST',
      url: '/v1/templates',
      headers: bearer(owner.secret),
      payload: { name: 'private-image', imageName: 'registry.example/private:1', containerRegistryAuthId: auth.id },
    });
    expect(template.statusCode).toBe(200);
    const templateId = (template.json() as { id: string }).id;
    await gw.db.pod.create({
      data: { id: 'pod-pulls-private', accountId: owner.accountId, image: 'x', containerRegistryAuthId: auth.id },
    });
    await gw.db.pod.create({
      data: {
        id: 'pod-pulled-once',
        accountId: owner.accountId,
        image: 'x',
        containerRegistryAuthId: auth.id,
        desiredStatus: 'TERMINATED',
      },
    });
    const remove = () =>
      gw.inject({ method: 'DELETE', url: `/v1/containerregistryauth/${auth.id}`, headers: bearer(owner.secret) });

    const refused = await remove();
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: `Container registry auth is in use by pods pod-pulls-private; templates ${templateId}; delete or change them first`,
    });
    await gw.db.pod.update({ where: { id: 'pod-pulls-private' }, data: { desiredStatus: 'TERMINATED' } });
    expect((await remove()).json().message).toBe(
      `Container registry auth is in use by templates ${templateId}; delete or change them first`,
    );
    const patchTemplate = (payload: object) =>
      gw.inject({ method: 'PATCH', url: `/v1/templates/${templateId}`, headers: bearer(owner.secret), payload });
    const notAnId = await patchTemplate({ containerRegistryAuthId: 5 });
    expect(notAnId.statusCode).toBe(400);
    expect(notAnId.json().message).toBe('containerRegistryAuthId: expected an id, or null or "" to remove it');
    // As `runpodctl template update <id> --registry-auth-id ""` detaches it (null does the same; templates.e2e.spec.ts).
    const detach = await patchTemplate({ containerRegistryAuthId: '' });
    expect(detach.statusCode).toBe(200);
    expect(detach.json()).toMatchObject({ containerRegistryAuthId: null });

    expect((await remove()).statusCode).toBe(204);
    expect(await gw.db.containerRegistryAuth.count({ where: { id: auth.id } })).toBe(0);
    const pods = await gw.db.pod.findMany({ where: { id: { in: ['pod-pulls-private', 'pod-pulled-once'] } } });
    expect(pods.map((p) => p.containerRegistryAuthId)).toEqual([null, null]);
  });

  it('answers a NUL character in the id with 404, never 5xx', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await gw.inject({ method, url: '/v1/containerregistryauth/a%00b', headers: bearer(owner.secret) });
      expect({ method, status: res.statusCode }).toEqual({ method, status: 404 });
    }
  });
});
