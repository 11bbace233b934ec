import { seedCatalog } from '@runplane/catalog';
import { type GatewayHarness, startGateway } from './harness';
import { allPages, problemOf, type V2Caller, v2Caller } from './v2-helpers';

interface VolumeV2 {
  id: string;
  name: string;
  size: number;
  dataCenter: string;
  type: string;
}

describe('/v2/network-volumes', () => {
  let gw: GatewayHarness;
  let owner: V2Caller;
  let other: V2Caller;

  beforeAll(async () => {
    gw = await startGateway('v2-network-volumes');
    await seedCatalog(gw.db);
    owner = await v2Caller(gw);
    other = await v2Caller(gw);
  });

  afterAll(async () => {
    await gw.close();
  });

  async function create(caller: V2Caller, body: object): Promise<VolumeV2> {
    const res = await caller.call('POST', '/v2/network-volumes', body);
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 201, body: expect.any(Object) });
    return res.json<VolumeV2>();
  }

  it('creates (201) in a catalog data center with its tier, and v1 sees the same volume', async () => {
    const standard = await create(owner, { name: 'data', size: 50, dataCenter: 'EU-RO-1' });
    expect(standard).toEqual({
      id: expect.any(String),
      name: 'data',
      size: 50,
      dataCenter: 'EU-RO-1',
      type: 'STANDARD',
    });
    const fast = await create(owner, { name: 'fast', size: 4096, dataCenter: 'US-TX-3', type: 'HIGH_PERFORMANCE' });
    expect(fast).toMatchObject({ size: 4096, type: 'HIGH_PERFORMANCE' });
    expect((await owner.call('GET', `/v2/network-volumes/${fast.id}`)).json()).toEqual(fast);
    expect((await owner.call('GET', `/v1/networkvolumes/${standard.id}`)).json()).toEqual({
      id: standard.id,
      name: 'data',
      size: 50,
      dataCenterId: 'EU-RO-1',
    });
    const fromV1 = await owner.call('POST', '/v1/networkvolumes', { name: 'v1', size: 20, dataCenterId: 'EU-RO-1' });
    const v1Id = fromV1.json<{ id: string }>().id;
    expect((await owner.call('GET', `/v2/network-volumes/${v1Id}`)).json()).toEqual({
      id: v1Id,
      name: 'v1',
      size: 20,
      dataCenter: 'EU-RO-1',
      type: 'STANDARD',
    });
  });

  it('renames and grows (the same size again is no change), never shrinks; v1 and v2 see each other', async () => {
    const vol = await create(owner, { name: 'grow', size: 10, dataCenter: 'EU-RO-1' });
    const grown = await owner.call('PATCH', `/v2/network-volumes/${vol.id}`, { size: 40, name: 'grown' });
    expect(grown.json()).toMatchObject({ size: 40, name: 'grown' });
    expect((await owner.call('PATCH', `/v2/network-volumes/${vol.id}`, { size: 40 })).json()).toMatchObject({
      size: 40,
    });
    const shrink = problemOf(await owner.call('PATCH', `/v2/network-volumes/${vol.id}`, { size: 20 }), 400);
    expect(shrink.errors).toEqual(['$.size: must be greater than the current size (40)']);
    expect((await owner.call('PATCH', `/v1/networkvolumes/${vol.id}`, { size: 60 })).statusCode).toBe(200);
    expect((await owner.call('GET', `/v2/network-volumes/${vol.id}`)).json()).toMatchObject({
      size: 60,
      name: 'grown',
    });
  });

  it('pages across pages in a stable order, with a pagination block even for one page', async () => {
    const pager = await v2Caller(gw);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1)
      ids.push((await create(pager, { name: `v${i}`, size: 10, dataCenter: 'EU-RO-1' })).id);
    const { items, pages } = await allPages<VolumeV2>(pager, '/v2/network-volumes', 'networkVolumes', 2);
    expect(pages).toBe(3);
    expect(items.map((v) => v.id)).toEqual([...ids].sort());
    const one = (await pager.call('GET', '/v2/network-volumes?limit=5')).json<{ pagination: unknown }>();
    expect(one.pagination).toEqual({ nextCursor: null, hasNextPage: false });
  });

  it('answers every error as problem+json', async () => {
    const cases: [object, number, string[] | undefined][] = [
      [{ size: 10, dataCenter: 'EU-RO-1' }, 422, ["$: missing property 'name'"]],
      [{ name: 'v', size: 9, dataCenter: 'EU-RO-1' }, 422, ['$.size: Too small: expected number to be >=10']],
      [{ name: 'v', size: 4097, dataCenter: 'EU-RO-1' }, 422, ['$.size: Too big: expected number to be <=4096']],
      [{ name: 'v', size: 10, dataCenter: 'EU-RO-1', type: 'FAST' }, 422, undefined],
      [{ name: 'v', size: 10, dataCenterId: 'EU-RO-1' }, 422, undefined],
      [{ name: 'v', size: 10, dataCenter: 'MARS-1' }, 400, ['$.dataCenter: unknown data center "MARS-1"']],
    ];
    for (const [body, status, errors] of cases) {
      const problem = problemOf(await owner.call('POST', '/v2/network-volumes', body), status);
      if (errors) expect(problem.errors).toEqual(errors);
    }
    const vol = await create(owner, { name: 'strict', size: 10, dataCenter: 'EU-RO-1' });
    expect(problemOf(await owner.call('PATCH', `/v2/network-volumes/${vol.id}`, {}), 422).errors).toEqual([
      '$: name or size is required',
    ]);
    expect(
      problemOf(await owner.call('PATCH', `/v2/network-volumes/${vol.id}`, { type: 'STANDARD' }), 422).errors,
    ).toEqual(["$: additional property 'type' not allowed", '$: name or size is required']);
    await gw.db.pod.create({
      data: { id: 'v2-pod-uses-vol', accountId: owner.accountId, image: 'x', networkVolumeId: vol.id },
    });
    expect(problemOf(await owner.call('DELETE', `/v2/network-volumes/${vol.id}`), 400).detail).toMatch(
      /^Network volume is in use by pods v2-pod-uses-vol/,
    );
    await gw.db.pod.update({ where: { id: 'v2-pod-uses-vol' }, data: { desiredStatus: 'TERMINATED' } });
    const deleted = await owner.call('DELETE', `/v2/network-volumes/${vol.id}`);
    expect({ status: deleted.statusCode, body: deleted.body }).toEqual({ status: 204, body: '' });
    expect(problemOf(await owner.call('GET', `/v2/network-volumes/${vol.id}`), 404).detail).toBe(
      'Network volume not found',
    );
    expect(problemOf(await owner.call('DELETE', `/v2/network-volumes/${vol.id}`), 404).status).toBe(404);
  });

  it('keeps tenants apart on every route', async () => {
    const theirs = await create(other, { name: 'theirs', size: 10, dataCenter: 'EU-RO-1' });
    const listed = (await owner.call('GET', '/v2/network-volumes')).json<{ networkVolumes: VolumeV2[] }>();
    expect(listed.networkVolumes.map((v) => v.id)).not.toContain(theirs.id);
    expect(problemOf(await owner.call('GET', `/v2/network-volumes/${theirs.id}`), 404).status).toBe(404);
    expect(problemOf(await owner.call('PATCH', `/v2/network-volumes/${theirs.id}`, { size: 20 }), 404).status).toBe(
      404,
    );
    expect(problemOf(await owner.call('DELETE', `/v2/network-volumes/${theirs.id}`), 404).status).toBe(404);
    expect((await other.call('GET', `/v2/network-volumes/${theirs.id}`)).json()).toEqual(theirs);
  });
});
