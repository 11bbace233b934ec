import { seedCatalog } from '@runplane/catalog';
import { bearer, type GatewayHarness, startGateway } from './harness';

/**
 * Tenancy across every v1 route: account A owns one of each resource; account B tries every documented
 * operation that takes an id with A's ids. Each answer must be a 404 that reveals nothing of A's resource, B's
 * lists must not show it, and A's resources must be unchanged afterwards.
 */

interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
}

const SECRET_NAME = 'owner-only-name-7f3a';

describe('v1 tenancy: another account sees 404 everywhere', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; keyId: string; secret: string };
  let intruder: { secret: string };
  const ids: Record<string, string> = {};

  const as = (secret: string, method: string, url: string, payload?: object) =>
    gw.inject({ method: method.toUpperCase() as 'GET', url, headers: bearer(secret), ...(payload ? { payload } : {}) });

  async function create(url: string, payload: object): Promise<string> {
    const res = await as(owner.secret, 'POST', url, payload);
    expect([200, 201]).toContain(res.statusCode);
    return (res.json() as { id: string }).id;
  }

  beforeAll(async () => {
    gw = await startGateway('cross-account');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey('ALL');
    intruder = await gw.accountWithKey('ALL');
    ids.apikeys = owner.keyId;
    ids.s3keys = await create('/v1/s3keys', { name: SECRET_NAME });
    ids.containerregistryauth = await create('/v1/containerregistryauth', {
      name: SECRET_NAME,
      username: 'u',
      password: 'p',
    });
    ids.templates = await create('/v1/templates', { name: SECRET_NAME, imageName: 'runplane/worker:1' });
    ids.networkvolumes = await create('/v1/networkvolumes', { name: SECRET_NAME, size: 10, dataCenterId: 'EU-RO-1' });
    ids.pods = await create('/v1/pods', {
      name: SECRET_NAME,
      imageName: 'runplane/pod:1',
      gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
      dataCenterIds: ['EU-RO-1'],
    });
    ids.endpoints = await create('/v1/endpoints', {
      name: SECRET_NAME,
      templateId: ids.templates,
      gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
    });
    // A public endpoint is named, not numbered: its model name is its id in the path.
    const published = await as(owner.secret, 'POST', '/v1/public-endpoints', {
      name: 'owner-model',
      endpointId: ids.endpoints,
      description: SECRET_NAME,
    });
    expect(published.statusCode).toBe(201);
    ids['public-endpoints'] = 'owner-model';
  });
  afterAll(() => gw.close());

  it('answers 404 without data on every operation that takes another account’s id', async () => {
    const doc = (await gw.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as OpenApiDocument;
    const tried: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (!path.includes('{')) continue;
      const resource = path.replace(/^\/v1/, '').split('/')[1] ?? '';
      const id = ids[resource];
      expect(id).toBeDefined();
      const url = path.replace(/\{[^}]+\}/, id ?? '');
      for (const method of Object.keys(methods).filter((m) => ['get', 'post', 'patch', 'delete'].includes(m))) {
        const change = resource === 'public-endpoints' ? { description: 'stolen' } : { name: 'stolen' };
        const payload = method === 'patch' || url.endsWith('/update') ? change : undefined;
        const res = await as(intruder.secret, method, url, payload);
        tried.push(`${method.toUpperCase()} ${path}`);
        expect({ route: `${method} ${path}`, status: res.statusCode }).toEqual({
          route: `${method} ${path}`,
          status: 404,
        });
        expect(res.body).not.toContain(SECRET_NAME);
        expect(res.json()).toHaveProperty('message');
      }
    }
    expect(tried.length).toBeGreaterThanOrEqual(20);
  });

  it('never lists another account’s resources and leaves them untouched', async () => {
    for (const list of [
      '/v1/pods?includeWorkers=true',
      '/v1/endpoints',
      '/v1/templates',
      '/v1/networkvolumes',
      '/v1/containerregistryauth',
      '/v1/apikeys',
      '/v1/s3keys',
    ]) {
      const res = await as(intruder.secret, 'GET', list);
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(SECRET_NAME);
      for (const id of Object.values(ids)) expect(res.body).not.toContain(id);
    }
    for (const resource of ['pods', 'endpoints', 'templates', 'networkvolumes', 'containerregistryauth']) {
      const res = await as(owner.secret, 'GET', `/v1/${resource}/${ids[resource] ?? ''}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: ids[resource], name: SECRET_NAME });
    }
  });
});
