import { type GatewayHarness, startGateway } from './harness';
import { allPages, problemOf, type V2Caller, v2Caller } from './v2-helpers';

describe('/v2/registries', () => {
  let gw: GatewayHarness;
  let owner: V2Caller;
  let other: V2Caller;

  beforeAll(async () => {
    gw = await startGateway('v2-registries');
    owner = await v2Caller(gw);
    other = await v2Caller(gw);
  });

  afterAll(async () => {
    await gw.close();
  });

  async function create(caller: V2Caller, name: string): Promise<{ id: string; name: string }> {
    const res = await caller.call('POST', '/v2/registries', { name, username: 'user', password: 'secret' });
    expect(res.statusCode).toBe(201);
    return res.json();
  }

  it('creates (201) write-only credentials that v1 and the scheduler use, and reads back only id and name', async () => {
    const created = await create(owner, 'dockerhub');
    expect(created).toEqual({ id: expect.any(String), name: 'dockerhub' });
    expect((await owner.call('GET', `/v2/registries/${created.id}`)).json()).toEqual(created);
    expect((await owner.call('GET', `/v1/containerregistryauth/${created.id}`)).json()).toEqual({
      ...created,
      username: 'user',
    });
    const fromV1 = await owner.call('POST', '/v1/containerregistryauth', { name: 'v1', username: 'u', password: 'p' });
    const v1Id = fromV1.json<{ id: string }>().id;
    expect((await owner.call('GET', `/v2/registries/${v1Id}`)).json()).toEqual({ id: v1Id, name: 'v1' });
    expect((await owner.call('DELETE', `/v2/registries/${v1Id}`)).statusCode).toBe(204);
    expect((await owner.call('GET', `/v1/containerregistryauth/${v1Id}`)).statusCode).toBe(404);
  });

  it('pages across pages, with a pagination block even for one page', async () => {
    const pager = await v2Caller(gw);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await create(pager, `r${i}`)).id);
    const { items, pages } = await allPages<{ id: string }>(pager, '/v2/registries', 'registries', 1);
    expect(pages).toBe(3);
    expect(items.map((r) => r.id)).toEqual([...ids].sort());
    expect((await pager.call('GET', '/v2/registries')).json()).toEqual({
      registries: expect.any(Array),
      pagination: { nextCursor: null, hasNextPage: false },
    });
  });

  it('answers every error as problem+json', async () => {
    await create(owner, 'dup');
    expect(
      problemOf(await owner.call('POST', '/v2/registries', { name: 'dup', username: 'u', password: 'p' }), 400).errors,
    ).toEqual(['$.name: a container registry auth named "dup" already exists']);
    expect(problemOf(await owner.call('POST', '/v2/registries', { name: 'x', username: 'u' }), 422).errors).toEqual([
      "$: missing property 'password'",
    ]);
    expect(
      problemOf(await owner.call('POST', '/v2/registries', { name: 'x', username: 'u', password: '' }), 422).errors,
    ).toEqual(['$.password: Too small: expected string to have >=1 characters']);
    const wrong = await owner.call('PATCH', '/v2/registries/abc', { name: 'x' });
    expect(problemOf(wrong, 405).detail).toMatch(/^PATCH is not allowed/);
    const used = await create(owner, 'used');
    await gw.db.pod.create({
      data: { id: 'v2-pod-uses-reg', accountId: owner.accountId, image: 'x', containerRegistryAuthId: used.id },
    });
    expect(problemOf(await owner.call('DELETE', `/v2/registries/${used.id}`), 400).detail).toMatch(
      /in use by pods v2-pod-uses-reg/,
    );
    expect(problemOf(await owner.call('GET', '/v2/registries/none'), 404).detail).toBe(
      'Container registry auth not found',
    );
    expect(problemOf(await owner.call('DELETE', '/v2/registries/none'), 404).status).toBe(404);
  });

  it('keeps tenants apart on every route', async () => {
    const theirs = await create(other, 'theirs');
    const listed = (await owner.call('GET', '/v2/registries')).json<{ registries: { id: string }[] }>();
    expect(listed.registries.map((r) => r.id)).not.toContain(theirs.id);
    expect(problemOf(await owner.call('GET', `/v2/registries/${theirs.id}`), 404).status).toBe(404);
    expect(problemOf(await owner.call('DELETE', `/v2/registries/${theirs.id}`), 404).status).toBe(404);
    expect((await other.call('GET', `/v2/registries/${theirs.id}`)).json()).toEqual(theirs);
  });
});
