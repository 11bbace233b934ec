import { seedCatalog } from '@runplane/catalog';
import { type GatewayHarness, startGateway } from './harness';
import { allPages, problemOf, type V2Caller, v2Caller } from './v2-helpers';

const GPU = 'NVIDIA GeForce RTX 4090';

describe('v2 /pods: pagination, problem+json errors and tenant isolation', () => {
  let gw: GatewayHarness;
  let me: V2Caller;
  let other: V2Caller;
  const mine: string[] = [];

  beforeAll(async () => {
    gw = await startGateway('v2-pods-errors');
    await seedCatalog(gw.db);
    me = await v2Caller(gw);
    other = await v2Caller(gw);
    for (let i = 0; i < 5; i += 1) {
      const res = await me.call('POST', '/v2/pods', { name: `p${i}`, image: 'alpine:3', gpu: { id: GPU } });
      mine.push(res.json<{ id: string }>().id);
    }
    await other.call('POST', '/v2/pods', { name: 'theirs', image: 'alpine:3', gpu: { id: GPU } });
  });
  afterAll(() => gw.close());

  it('pages through every Pod with limit and nextCursor, oldest first, and one page says so too', async () => {
    const { items, pages } = await allPages<{ id: string }>(me, '/v2/pods', 'pods', 2);
    expect(pages).toBe(3);
    expect(items.map((p) => p.id)).toEqual(mine);
    const all = (await me.call('GET', '/v2/pods?includeClusterPods=true&unknown=1')).json<{
      pods: unknown[];
      pagination: unknown;
    }>();
    expect(all.pods).toHaveLength(5);
    expect(all.pagination).toEqual({ nextCursor: null, hasNextPage: false });
  });

  it('pages Pods created in the same millisecond by id, each exactly once, and resumes after one deleted', async () => {
    const tied = await v2Caller(gw);
    const createdAt = new Date('2026-01-02T03:04:05.678Z');
    const ids = ['tie0a', 'tie0b', 'tie0c', 'tie0d', 'tie0e'].map((id) => `${id}${tied.accountId}`.slice(0, 24));
    await gw.db.pod.createMany({
      data: [...ids].reverse().map((id) => ({ id, accountId: tied.accountId, image: 'alpine:3', createdAt })),
    });
    const later = { id: `tie1${tied.accountId}`.slice(0, 24), accountId: tied.accountId, image: 'alpine:3' };
    await gw.db.pod.create({ data: { ...later, createdAt: new Date(createdAt.getTime() + 1) } });
    const { items, pages } = await allPages<{ id: string }>(tied, '/v2/pods', 'pods', 2);
    expect(pages).toBe(3);
    expect(items.map((p) => p.id)).toEqual([...ids, later.id]);
    const first = (await tied.call('GET', '/v2/pods?limit=2')).json<{ pagination: { nextCursor: string } }>();
    await gw.db.pod.delete({ where: { id: ids[1] } });
    const next = await tied.call('GET', `/v2/pods?limit=2&cursor=${encodeURIComponent(first.pagination.nextCursor)}`);
    expect(next.json<{ pods: { id: string }[] }>().pods.map((p) => p.id)).toEqual([ids[2], ids[3]]);
  });

  it('leaves serverless workers out (their endpoint lists them)', async () => {
    const worker = await gw.db.pod.create({
      data: { id: `w${mine[0]}`.slice(0, 24), accountId: me.accountId, image: 'worker:1', endpointId: null },
    });
    const template = await me.call('POST', '/v1/templates', { name: 'w', imageName: 'w:1', isServerless: true });
    const endpoint = await me.call('POST', '/v1/endpoints', {
      name: 'e',
      templateId: template.json<{ id: string }>().id,
      gpuTypeIds: [GPU],
      workersMin: 0,
    });
    await gw.db.pod.update({ where: { id: worker.id }, data: { endpointId: endpoint.json<{ id: string }>().id } });
    expect((await me.call('GET', '/v2/pods')).json<{ pods: { id: string }[] }>().pods.map((p) => p.id)).toEqual(mine);
    problemOf(await me.call('GET', `/v2/pods/${worker.id}`), 404);
    problemOf(await me.call('POST', `/v2/pods/${worker.id}/action`, { action: 'stop' }), 404);
  });

  it.each([
    ['limit=0', 'limit: must be >= 1'],
    ['limit=1001', 'limit: must be <= 1000'],
    ['cursor=bogus', 'cursor: not a cursor of this list'],
    [`cursor=${Buffer.from('{"l":"pods","a":"no-time"}').toString('base64url')}`, 'cursor: not a cursor of this list'],
  ])('GET /v2/pods?%s is a 422 naming the parameter', async (query, error) => {
    expect(problemOf(await me.call('GET', `/v2/pods?${query}`), 422).errors?.join(' ')).toContain(error);
  });

  it.each([
    ['no name', { image: 'a', gpu: { id: GPU } }, 422, "$: missing property 'name'"],
    ['no image nor template', { name: 'x', gpu: { id: GPU } }, 422, "$: missing property 'image'"],
    [
      'an unknown field',
      { name: 'x', image: 'a', imageName: 'a' },
      422,
      "$: additional property 'imageName' not allowed",
    ],
    [
      'an unknown gpu field',
      { name: 'x', image: 'a', gpu: { id: GPU, type: 'x' } },
      422,
      "$.gpu: additional property 'type'",
    ],
    ['a bad cloud', { name: 'x', image: 'a', cloud: 'ALL' }, 422, '$.cloud:'],
    [
      'a small volume',
      { name: 'x', image: 'a', mounts: { persistent: { size: 5, path: '/w' } } },
      422,
      '$.mounts.persistent.size:',
    ],
    [
      'two network volumes',
      {
        name: 'x',
        image: 'a',
        mounts: {
          network: [
            { volumeId: 'a', path: '/a' },
            { volumeId: 'b', path: '/b' },
          ],
        },
      },
      422,
      '$.mounts.network:',
    ],
    ['gpu and cpu', { name: 'x', image: 'a', gpu: { id: GPU }, cpu: { id: 'cpu3c', vcpuCount: 2 } }, 400, undefined],
    [
      'both mounts',
      {
        name: 'x',
        image: 'a',
        mounts: { persistent: { size: 20, path: '/w' }, network: [{ volumeId: 'v', path: '/d' }] },
      },
      400,
      undefined,
    ],
    [
      'cuda set and floor',
      { name: 'x', image: 'a', gpu: { id: GPU, allowedCudaVersions: ['12.8'], minCudaVersion: '12.4' } },
      400,
      undefined,
    ],
  ])('POST /v2/pods with %s is a problem with the expected status', async (_what, body, status, error) => {
    const problem = problemOf(await me.call('POST', '/v2/pods', body), status);
    if (error) expect(problem.errors?.join(' ')).toContain(error);
  });

  it('an unknown GPU type, volume or template is a problem, not a 500', async () => {
    const gpu = await me.call('POST', '/v2/pods', { name: 'x', image: 'a', gpu: { id: 'NVIDIA Nothing' } });
    expect([400, 422]).toContain(gpu.statusCode);
    problemOf(gpu, gpu.statusCode);
    problemOf(
      await me.call('POST', '/v2/pods', {
        name: 'x',
        image: 'a',
        mounts: { network: [{ volumeId: 'nope', path: '/d' }] },
      }),
      404,
    );
    problemOf(await me.call('POST', '/v2/pods', { name: 'x', templateId: 'nope' }), 404);
  });

  it('PATCH and action bodies are strict; an unknown template is a 404', async () => {
    const id = mine[0] as string;
    expect(problemOf(await me.call('PATCH', `/v2/pods/${id}`, { cpu: {} }), 422).errors).toEqual([
      "$: additional property 'cpu' not allowed",
    ]);
    problemOf(await me.call('PATCH', `/v2/pods/${id}`, { disk: 0 }), 422);
    problemOf(await me.call('PATCH', `/v2/pods/${id}`, { templateId: 'another' }), 404);
    expect(problemOf(await me.call('POST', `/v2/pods/${id}/action`, {}), 422).errors?.[0]).toMatch(/^\$\.action: /);
    problemOf(await me.call('POST', `/v2/pods/${id}/action`, { action: 'stop', force: true }), 422);
  });

  it('another tenant sees none of my Pods on any route, and I none of theirs', async () => {
    const id = mine[1] as string;
    expect((await other.call('GET', '/v2/pods')).json<{ pods: { name: string }[] }>().pods.map((p) => p.name)).toEqual([
      'theirs',
    ]);
    problemOf(await other.call('GET', `/v2/pods/${id}`), 404);
    problemOf(await other.call('PATCH', `/v2/pods/${id}`, { name: 'stolen' }), 404);
    problemOf(await other.call('DELETE', `/v2/pods/${id}`), 404);
    for (const action of ['start', 'stop', 'restart', 'terminate'])
      problemOf(await other.call('POST', `/v2/pods/${id}/action`, { action }), 404);
    // My cursor only says where my listing stopped: used by another tenant it pages their Pods, never mine.
    const page = await other.call('GET', `/v2/pods?cursor=${encodeURIComponent(await firstCursor(me))}`);
    expect(page.json<{ pods: { id: string }[] }>().pods.every((p) => !mine.includes(p.id))).toBe(true);
    expect((await me.call('GET', `/v2/pods/${id}`)).json()).toMatchObject({ name: 'p1', status: 'PROVISIONING' });
  });

  it('a read-only key reads but cannot write (403), and no key is a 401', async () => {
    const reader = await v2Caller(gw, 'READ_ONLY');
    expect((await reader.call('GET', '/v2/pods')).statusCode).toBe(200);
    problemOf(await reader.call('POST', '/v2/pods', { name: 'x', image: 'a' }), 403);
    problemOf(await reader.call('POST', `/v2/pods/${mine[0]}/action`, { action: 'stop' }), 403);
    problemOf(await gw.inject({ method: 'GET', url: '/v2/pods' }), 401);
    problemOf(
      await gw.inject({ method: 'PUT', url: '/v2/pods', headers: { authorization: `Bearer ${me.secret}` } }),
      405,
    );
  });
});

async function firstCursor(caller: V2Caller): Promise<string> {
  return (await caller.call('GET', '/v2/pods?limit=1')).json<{ pagination: { nextCursor: string } }>().pagination
    .nextCursor;
}
