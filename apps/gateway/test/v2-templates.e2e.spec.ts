import { type GatewayHarness, startGateway } from './harness';
import { allPages, problemOf, type V2Caller, v2Caller } from './v2-helpers';

interface TemplateV2 {
  id: string;
  name: string;
  [field: string]: unknown;
}

describe('/v2/templates', () => {
  let gw: GatewayHarness;
  let owner: V2Caller;
  let other: V2Caller;

  beforeAll(async () => {
    gw = await startGateway('v2-templates');
    owner = await v2Caller(gw);
    other = await v2Caller(gw);
  });

  afterAll(async () => {
    await gw.close();
  });

  async function create(caller: V2Caller, body: object): Promise<TemplateV2> {
    const res = await caller.call('POST', '/v2/templates', body);
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 201, body: expect.any(Object) });
    return res.json<TemplateV2>();
  }

  it('creates with RunPod v2 defaults (201), reads it back, and v1 sees the same row', async () => {
    const created = await create(owner, { name: 'defaults', image: 'busybox:1' });
    expect(created).toEqual({
      id: expect.any(String),
      name: 'defaults',
      image: 'busybox:1',
      args: '',
      disk: 50,
      mounts: {},
      ports: [],
      env: {},
      registry: null,
      serverless: false,
      public: false,
      category: 'NVIDIA',
      startSsh: true,
      startJupyter: true,
      allowedCudaVersions: [],
    });
    expect((await owner.call('GET', `/v2/templates/${created.id}`)).json()).toEqual(created);
    const v1 = (await owner.call('GET', `/v1/templates/${created.id}`)).json<Record<string, unknown>>();
    expect(v1).toMatchObject({ id: created.id, imageName: 'busybox:1', containerDiskInGb: 50, volumeInGb: 0 });
  });

  it('round-trips every field between v1 and v2 on the same row', async () => {
    const auth = await owner.call('POST', '/v2/registries', { name: 'tpl-reg', username: 'u', password: 'p' });
    const registry = auth.json<{ id: string }>().id;
    const full = await create(owner, {
      name: 'full',
      image: 'runpod/pytorch:2',
      args: 'python -u "my app.py" --flag',
      disk: 30,
      mounts: { persistent: { size: 25, path: '/data' } },
      ports: ['8888/http', '22/tcp'],
      env: { A: '1' },
      registry,
      serverless: true,
      public: true,
      category: 'AMD',
      startSsh: false,
      startJupyter: false,
      allowedCudaVersions: ['12.8', '12.6'],
    });
    const v1 = (await owner.call('GET', `/v1/templates/${full.id}`)).json<Record<string, unknown>>();
    expect(v1).toMatchObject({
      imageName: 'runpod/pytorch:2',
      dockerStartCmd: ['python', '-u', 'my app.py', '--flag'],
      containerDiskInGb: 30,
      volumeInGb: 25,
      volumeMountPath: '/data',
      ports: ['8888/http', '22/tcp'],
      env: { A: '1' },
      containerRegistryAuthId: registry,
      isServerless: true,
      isPublic: true,
      category: 'AMD',
    });
    expect(full.args).toBe('python -u "my app.py" --flag');

    const patched = await owner.call('PATCH', `/v1/templates/${full.id}`, {
      imageName: 'runpod/pytorch:3',
      dockerStartCmd: ['sh', '-c', 'echo hi'],
      volumeInGb: 0,
    });
    expect(patched.statusCode).toBe(200);
    const afterV1 = (await owner.call('GET', `/v2/templates/${full.id}`)).json<TemplateV2>();
    expect(afterV1).toMatchObject({ image: 'runpod/pytorch:3', args: 'sh -c "echo hi"', mounts: {}, startSsh: false });

    const fromV1 = await owner.call('POST', '/v1/templates', { name: 'from-v1', imageName: 'alpine' });
    const v1Id = fromV1.json<{ id: string }>().id;
    expect((await owner.call('GET', `/v2/templates/${v1Id}`)).json()).toMatchObject({
      image: 'alpine',
      mounts: { persistent: { size: 20, path: '/workspace' } },
      ports: ['8888/http', '22/tcp'],
      startSsh: true,
      startJupyter: true,
    });
  });

  it('PATCH changes only the fields sent, v2-only ones included, and v1 reads the result', async () => {
    const tpl = await create(owner, { name: 'patch-me', image: 'a', env: { K: 'v' } });
    const res = await owner.call('PATCH', `/v2/templates/${tpl.id}`, {
      name: 'patched',
      category: 'CPU',
      serverless: true,
      startSsh: false,
      allowedCudaVersions: ['12.4'],
      mounts: { persistent: { size: 10, path: '/w' } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'patched',
      image: 'a',
      env: { K: 'v' },
      category: 'CPU',
      serverless: true,
      startSsh: false,
      startJupyter: true,
      allowedCudaVersions: ['12.4'],
      mounts: { persistent: { size: 10, path: '/w' } },
    });
    const unchanged = await owner.call('PATCH', `/v2/templates/${tpl.id}`, { mounts: {} });
    expect(unchanged.json()).toEqual(res.json());
    const v1 = (await owner.call('GET', `/v1/templates/${tpl.id}`)).json<Record<string, unknown>>();
    expect(v1).toMatchObject({ name: 'patched', category: 'CPU', isServerless: true, volumeInGb: 10 });
  });

  it('pages the caller own templates in a stable order, with a pagination block even for one page', async () => {
    const pager = await v2Caller(gw);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await create(pager, { name: `page-${i}`, image: 'x' })).id);
    const { items, pages } = await allPages<TemplateV2>(pager, '/v2/templates', 'templates', 2);
    expect(pages).toBe(3);
    expect(items.map((t) => t.id)).toEqual([...ids].sort());
    const one = (await pager.call('GET', '/v2/templates')).json<{ templates: unknown[]; pagination: unknown }>();
    expect(one.templates).toHaveLength(5);
    expect(one.pagination).toEqual({ nextCursor: null, hasNextPage: false });
    const first = (await pager.call('GET', '/v2/templates?limit=2')).json<{ pagination: { nextCursor: string } }>();
    // A template deleted between pages does not shift the next page.
    const [, second] = [...ids].sort();
    expect((await pager.call('DELETE', `/v2/templates/${second}`)).statusCode).toBe(204);
    const next = await pager.call('GET', `/v2/templates?limit=2&cursor=${first.pagination.nextCursor}`);
    expect(next.json<{ templates: TemplateV2[] }>().templates.map((t) => t.id)).toEqual([...ids].sort().slice(2, 4));
    const foreign = await pager.call('GET', `/v2/network-volumes?cursor=${first.pagination.nextCursor}`);
    expect(problemOf(foreign, 422).errors?.[0]).toMatch(/^cursor: not a cursor of this list/);
  });

  it('answers every error as problem+json naming the v2 field', async () => {
    await create(owner, { name: 'taken', image: 'x' });
    expect(problemOf(await owner.call('POST', '/v2/templates', { name: 'taken', image: 'y' }), 400)).toEqual({
      title: 'Bad Request',
      status: 400,
      detail: 'name: a template named "taken" already exists',
      errors: ['$.name: a template named "taken" already exists'],
    });
    const foreignRegistry = await other.call('POST', '/v2/registries', {
      name: 'theirs',
      username: 'u',
      password: 'p',
    });
    const theirs = foreignRegistry.json<{ id: string }>().id;
    const refused = problemOf(
      await owner.call('POST', '/v2/templates', { name: 'r', image: 'x', registry: theirs }),
      400,
    );
    expect(refused.errors).toEqual([`$.registry: container registry auth "${theirs}" not found`]);
    const bad = problemOf(
      await owner.call('POST', '/v2/templates', {
        name: 'b',
        image: 'x',
        ports: ['80/ftp'],
        allowedCudaVersions: ['12'],
      }),
      422,
    );
    expect(bad.errors).toEqual([
      '$.ports[0]: must look like 8888/http or 22/tcp',
      '$.allowedCudaVersions[0]: must be major.minor, e.g. 12.8',
    ]);
    const tpl = await create(owner, { name: 'strict', image: 'x' });
    expect(problemOf(await owner.call('PATCH', `/v2/templates/${tpl.id}`, { readme: 'no' }), 422).errors).toEqual([
      "$: additional property 'readme' not allowed",
    ]);
    expect(problemOf(await owner.call('PATCH', '/v2/templates/missing', { name: 'x' }), 404).detail).toBe(
      'Template not found',
    );
    expect(problemOf(await owner.call('DELETE', '/v2/templates/missing'), 404).title).toBe('Not Found');
  });

  it('refuses to delete a template a live Pod uses (400), then deletes it (204)', async () => {
    const tpl = await create(owner, { name: 'in-use', image: 'x' });
    await gw.db.pod.create({
      data: { id: 'v2-pod-uses-tpl', accountId: owner.accountId, image: 'x', templateId: tpl.id },
    });
    const refused = problemOf(await owner.call('DELETE', `/v2/templates/${tpl.id}`), 400);
    expect(refused.detail).toMatch(/^Template is in use by pods v2-pod-uses-tpl/);
    await gw.db.pod.update({ where: { id: 'v2-pod-uses-tpl' }, data: { desiredStatus: 'TERMINATED' } });
    const deleted = await owner.call('DELETE', `/v2/templates/${tpl.id}`);
    expect({ status: deleted.statusCode, body: deleted.body }).toEqual({ status: 204, body: '' });
    expect((await owner.call('GET', `/v2/templates/${tpl.id}`)).statusCode).toBe(404);
    expect((await owner.call('GET', `/v1/templates/${tpl.id}`)).statusCode).toBe(404);
  });

  it('keeps tenants apart on every route: public templates are readable, never writable, by others', async () => {
    const secret = await create(other, { name: 'private', image: 'x' });
    const shared = await create(other, { name: 'shared', image: 'x', public: true });
    expect((await owner.call('GET', `/v2/templates/${shared.id}`)).json()).toMatchObject({ id: shared.id });
    const listed = (await owner.call('GET', '/v2/templates')).json<{ templates: TemplateV2[] }>().templates;
    expect(listed.map((t) => t.id)).not.toEqual(expect.arrayContaining([secret.id]));
    expect(listed.map((t) => t.id)).not.toEqual(expect.arrayContaining([shared.id]));
    for (const id of [secret.id, shared.id]) {
      expect(problemOf(await owner.call('PATCH', `/v2/templates/${id}`, { name: 'mine' }), 404).status).toBe(404);
      expect(problemOf(await owner.call('PATCH', `/v2/templates/${id}`, { startSsh: false }), 404).status).toBe(404);
      expect(problemOf(await owner.call('DELETE', `/v2/templates/${id}`), 404).status).toBe(404);
    }
    expect(problemOf(await owner.call('GET', `/v2/templates/${secret.id}`), 404).status).toBe(404);
    expect((await other.call('GET', `/v2/templates/${shared.id}`)).json()).toMatchObject({
      name: 'shared',
      startSsh: true,
    });
  });
});
