import { seedCatalog } from '@runplane/catalog';
import type { NetworkVolumeDto } from '@runplane/contracts';
import { bearer, type GatewayHarness, startGateway } from './harness';

type Caller = { accountId: string; secret: string };

describe('v1 /networkvolumes', () => {
  let gw: GatewayHarness;
  let owner: Caller;
  let other: Caller;
  let templateId: string;

  beforeAll(async () => {
    gw = await startGateway('network-volumes');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey('ALL');
    other = await gw.accountWithKey('ALL');
    templateId = (
      await gw.db.template.create({ data: { id: 'nv-tpl', accountId: owner.accountId, name: 't', imageName: 'x' } })
    ).id;
  });
  afterAll(() => gw.close());

  const call = (caller: Caller, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    gw.inject({ method, url, headers: bearer(caller.secret), ...(payload ? { payload } : {}) });
  async function create(
    caller: Caller,
    payload: object = { name: 'vol', size: 50, dataCenterId: 'EU-RO-1' },
  ): Promise<NetworkVolumeDto> {
    const res = await call(caller, 'POST', '/v1/networkvolumes', payload);
    expect(res.statusCode).toBe(200);
    return res.json() as NetworkVolumeDto;
  }

  it('walks create → list → get → grow (PATCH and POST /update) → rename → delete', async () => {
    const created = await create(owner, { name: 'datasets', size: 100, dataCenterId: 'US-TX-3' });
    expect(created).toEqual({ id: expect.any(String), name: 'datasets', size: 100, dataCenterId: 'US-TX-3' });
    expect(((await call(owner, 'GET', '/v1/networkvolumes')).json() as NetworkVolumeDto[]).map((v) => v.id)).toContain(
      created.id,
    );
    const got = await call(owner, 'GET', `/v1/networkvolumes/${created.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(created);

    const grown = await call(owner, 'PATCH', `/v1/networkvolumes/${created.id}`, { size: 150 });
    expect(grown.statusCode).toBe(200);
    expect(grown.json()).toEqual({ ...created, size: 150 });
    const both = await call(owner, 'POST', `/v1/networkvolumes/${created.id}/update`, {
      size: 4000,
      name: 'datasets-xl',
    });
    expect(both.statusCode).toBe(200);
    expect(both.json()).toEqual({ ...created, size: 4000, name: 'datasets-xl' });
    const renamed = await call(owner, 'PATCH', `/v1/networkvolumes/${created.id}`, { name: 'renamed' });
    expect(renamed.json()).toEqual({ ...created, size: 4000, name: 'renamed' });
    const untouched = await call(owner, 'PATCH', `/v1/networkvolumes/${created.id}`, {});
    expect(untouched.json()).toEqual(renamed.json());

    const del = await call(owner, 'DELETE', `/v1/networkvolumes/${created.id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await call(owner, 'GET', `/v1/networkvolumes/${created.id}`)).statusCode).toBe(404);
    expect((await call(owner, 'DELETE', `/v1/networkvolumes/${created.id}`)).statusCode).toBe(404);
  });

  it('allows sizes 0..4000 and names need not be unique', async () => {
    expect(await create(owner, { name: 'same', size: 0, dataCenterId: 'EU-RO-1' })).toMatchObject({ size: 0 });
    expect(await create(owner, { name: 'same', size: 4000, dataCenterId: 'EU-RO-1' })).toMatchObject({ size: 4000 });
  });

  it('rejects bad input with 400 naming the field', async () => {
    const cases: Array<[object, RegExp]> = [
      [{ size: 10, dataCenterId: 'EU-RO-1' }, /^name: /],
      [{ name: 'v', dataCenterId: 'EU-RO-1' }, /^size: /],
      [{ name: 'v', size: 10 }, /^dataCenterId: /],
      [{ name: 'v', size: -1, dataCenterId: 'EU-RO-1' }, /^size: /],
      [{ name: 'v', size: 4001, dataCenterId: 'EU-RO-1' }, /^size: /],
      [{ name: 'v', size: 1.5, dataCenterId: 'EU-RO-1' }, /^size: /],
      [{ name: 'v', size: '10', dataCenterId: 'EU-RO-1' }, /^size: /],
      [{ name: 'v', size: 1e308, dataCenterId: 'EU-RO-1' }, /^size: /],
      [{ name: 'v'.repeat(192), size: 10, dataCenterId: 'EU-RO-1' }, /^name: /],
      [{ name: 'v', size: 10, dataCenterId: 'MARS-1' }, /^dataCenterId: unknown data center "MARS-1"$/],
      [{ name: 'v', size: 10, dataCenterId: 'EU-RO-1', highPerformance: true }, /^Unknown field: highPerformance/],
    ];
    for (const [payload, message] of cases) {
      const res = await call(owner, 'POST', '/v1/networkvolumes', payload);
      expect({ payload, status: res.statusCode }).toEqual({ payload, status: 400 });
      expect(res.json().message).toMatch(message);
    }
    const volume = await create(owner);
    for (const payload of [{ size: 4001 }, { size: 'big' }, { dataCenterId: 'EU-SE-1' }, { name: '' }]) {
      expect((await call(owner, 'PATCH', `/v1/networkvolumes/${volume.id}`, payload)).statusCode).toBe(400);
    }
    expect((await call(owner, 'GET', `/v1/networkvolumes/${volume.id}`)).json()).toEqual(volume);
  });

  it('only grows: an equal or smaller size is refused with the current size', async () => {
    const volume = await create(owner, { name: 'grow-only', size: 50, dataCenterId: 'EU-RO-1' });
    for (const [method, url, size] of [
      ['PATCH', `/v1/networkvolumes/${volume.id}`, 50],
      ['PATCH', `/v1/networkvolumes/${volume.id}`, 10],
      ['POST', `/v1/networkvolumes/${volume.id}/update`, 0],
    ] as const) {
      const res = await call(owner, method, url, { size, name: 'should-not-apply' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ message: 'size: must be greater than the current size (50)' });
    }
    expect((await call(owner, 'GET', `/v1/networkvolumes/${volume.id}`)).json()).toEqual(volume);
  });

  it('refuses to delete a volume attached to a live Pod or an endpoint, naming them', async () => {
    const volume = await create(owner);
    await gw.db.pod.create({
      data: { id: 'pod-on-vol', accountId: owner.accountId, image: 'x', networkVolumeId: volume.id },
    });
    await gw.db.pod.create({
      data: {
        id: 'pod-was-on-vol',
        accountId: owner.accountId,
        image: 'x',
        networkVolumeId: volume.id,
        desiredStatus: 'TERMINATED',
      },
    });
    await gw.db.endpoint.create({
      data: { id: 'ep-on-vol', accountId: owner.accountId, name: 'e', templateId, networkVolumeId: volume.id },
    });
    await gw.db.endpoint.create({
      data: {
        id: 'ep-multi-vol',
        accountId: owner.accountId,
        name: 'e',
        templateId,
        networkVolumeIds: ['other', volume.id],
      },
    });

    const refused = await call(owner, 'DELETE', `/v1/networkvolumes/${volume.id}`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe(
      'Network volume is in use by pods pod-on-vol; endpoints ep-multi-vol, ep-on-vol; delete or change them first',
    );
    await gw.db.pod.update({ where: { id: 'pod-on-vol' }, data: { desiredStatus: 'TERMINATED' } });
    await gw.db.endpoint.delete({ where: { id: 'ep-on-vol' } });
    expect((await call(owner, 'DELETE', `/v1/networkvolumes/${volume.id}`)).json().message).toBe(
      'Network volume is in use by endpoints ep-multi-vol; delete or change them first',
    );
    await gw.db.endpoint.delete({ where: { id: 'ep-multi-vol' } });

    expect((await call(owner, 'DELETE', `/v1/networkvolumes/${volume.id}`)).statusCode).toBe(204);
    // Terminated Pods keep their history; only the link to the deleted volume goes.
    const pods = await gw.db.pod.findMany({ where: { id: { in: ['pod-on-vol', 'pod-was-on-vol'] } } });
    expect(pods.map((p) => p.networkVolumeId)).toEqual([null, null]);
  });

  it("answers 404 without data for another account's volume and leaves it unchanged", async () => {
    const theirs = await create(other, { name: 'their-secret-volume', size: 20, dataCenterId: 'EU-RO-1' });
    for (const [method, url, payload] of [
      ['GET', `/v1/networkvolumes/${theirs.id}`, undefined],
      ['PATCH', `/v1/networkvolumes/${theirs.id}`, { size: 30 }],
      ['POST', `/v1/networkvolumes/${theirs.id}/update`, { name: 'stolen' }],
      ['DELETE', `/v1/networkvolumes/${theirs.id}`, undefined],
    ] as const) {
      const res = await call(owner, method, url, payload);
      expect({ method, status: res.statusCode }).toEqual({ method, status: 404 });
      expect(res.json()).toMatchObject({ message: 'Network volume not found' });
      expect(res.body).not.toContain('their-secret-volume');
    }
    expect(
      ((await call(owner, 'GET', '/v1/networkvolumes')).json() as NetworkVolumeDto[]).map((v) => v.id),
    ).not.toContain(theirs.id);
    expect((await call(other, 'GET', `/v1/networkvolumes/${theirs.id}`)).json()).toEqual(theirs);
  });

  it('answers NUL characters in ids and fields with 4xx, never 5xx', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await call(owner, method, '/v1/networkvolumes/a%00b', method === 'PATCH' ? { size: 10 } : undefined);
      expect({ method, status: res.statusCode }).toEqual({ method, status: 404 });
    }
    for (const payload of [
      { name: 'a\u0000b', size: 1, dataCenterId: 'EU-RO-1' },
      { name: 'ok', size: 1, dataCenterId: 'EU\u0000RO-1' },
    ]) {
      const res = await call(owner, 'POST', '/v1/networkvolumes', payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(/must not contain NUL characters/);
    }
  });
});
