import type { Caller, GatewayHarness } from './harness';
import { startTemplatesWorld, templateRequests } from './templates-fixture';

describe('v1 /templates', () => {
  let gw: GatewayHarness;
  let owner: Caller;
  let other: Caller;
  const { call, create } = templateRequests(() => gw);

  beforeAll(async () => ({ gw, owner, other } = await startTemplatesWorld('templates')));
  afterAll(() => gw.close());

  it('creates with RunPod defaults and returns the full template', async () => {
    const created = await create(owner, { name: 'defaults', imageName: 'runplane/base:1' });
    expect(created).toEqual({
      id: expect.any(String),
      name: 'defaults',
      imageName: 'runplane/base:1',
      category: 'NVIDIA',
      containerDiskInGb: 50,
      volumeInGb: 20,
      volumeMountPath: '/workspace',
      ports: ['8888/http', '22/tcp'],
      env: {},
      dockerEntrypoint: [],
      dockerStartCmd: [],
      isPublic: false,
      isRunpod: false,
      isServerless: false,
      readme: '',
      containerRegistryAuthId: null,
      earned: 0,
      runtimeInMin: 0,
    });
    const got = await call(owner, 'GET', `/v1/templates/${created.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(created);
  });

  it('walks create → get → PATCH → POST /update → delete with every field', async () => {
    const auth = (
      await call(owner, 'POST', '/v1/containerregistryauth', { name: 'tpl-auth', username: 'u', password: 'p' })
    ).json() as { id: string };
    const created = await create(owner, {
      name: 'full',
      imageName: 'registry.example/app:2',
      category: 'CPU',
      containerDiskInGb: 10,
      volumeInGb: 0,
      volumeMountPath: '/data',
      ports: '8000/http, 22/tcp',
      env: { MODE: 'prod' },
      dockerEntrypoint: ['/bin/sh', '-c'],
      dockerStartCmd: ['serve'],
      isServerless: true,
      readme: '# hello',
      containerRegistryAuthId: auth.id,
    });
    expect(created).toMatchObject({
      category: 'CPU',
      ports: ['8000/http', '22/tcp'],
      env: { MODE: 'prod' },
      isServerless: true,
      containerRegistryAuthId: auth.id,
    });

    const patched = await call(owner, 'PATCH', `/v1/templates/${created.id}`, {
      name: 'full-2',
      env: { MODE: 'dev' },
      isPublic: true,
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toEqual({ ...created, name: 'full-2', env: { MODE: 'dev' }, isPublic: true });

    const synonym = await call(owner, 'POST', `/v1/templates/${created.id}/update`, {
      containerRegistryAuthId: null,
      dockerStartCmd: [],
    });
    expect(synonym.statusCode).toBe(200);
    expect(synonym.json()).toEqual({
      ...created,
      name: 'full-2',
      env: { MODE: 'dev' },
      isPublic: true,
      containerRegistryAuthId: null,
      dockerStartCmd: [],
    });

    const unchanged = await call(owner, 'PATCH', `/v1/templates/${created.id}`, {});
    expect(unchanged.json()).toEqual(synonym.json());

    const del = await call(owner, 'DELETE', `/v1/templates/${created.id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await call(owner, 'GET', `/v1/templates/${created.id}`)).statusCode).toBe(404);
  });

  it('rejects bad input with 400 naming the field', async () => {
    const cases: Array<[object, RegExp]> = [
      [{ imageName: 'x' }, /^name: /],
      [{ name: 'no-image' }, /^imageName: /],
      [{ name: 'x', imageName: 'x', category: 'TPU' }, /^category: /],
      [{ name: 'x', imageName: 'x', ports: ['80/ftp'] }, /^ports\.0: /],
      [{ name: 'x', imageName: 'x', containerDiskInGb: 4001 }, /^containerDiskInGb: /],
      [{ name: 'x', imageName: 'x', volumeInGb: -1 }, /^volumeInGb: /],
      [{ name: 'x', imageName: 'x', volumeMountPath: 'relative' }, /^volumeMountPath: must be an absolute path/],
      [{ name: 'x', imageName: 'x', env: { A: 1 } }, /^env\.A: /],
      [{ name: 'x'.repeat(192), imageName: 'x' }, /^name: /],
      [{ name: 'x', imageName: 'x', surprise: true }, /^Unknown field: surprise/],
      [
        { name: 'x', imageName: 'x', containerRegistryAuthId: 'nope' },
        /^containerRegistryAuthId: container registry auth "nope" not found/,
      ],
    ];
    for (const [payload, message] of cases) {
      const res = await call(owner, 'POST', '/v1/templates', payload);
      expect({ payload, status: res.statusCode }).toEqual({ payload, status: 400 });
      expect(res.json().message).toMatch(message);
    }
    const mine = await create(owner, { name: 'validated', imageName: 'x' });
    const fixed = await call(owner, 'PATCH', `/v1/templates/${mine.id}`, { category: 'AMD' });
    expect(fixed.statusCode).toBe(400);
    expect(fixed.json().message).toBe('Unknown field: category');
  });

  it('keeps names unique per account (400) but not across accounts', async () => {
    const first = await create(owner, { name: 'unique', imageName: 'x' });
    const again = await call(owner, 'POST', '/v1/templates', { name: 'unique', imageName: 'y' });
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toBe('name: a template named "unique" already exists');
    await create(other, { name: 'unique', imageName: 'x' });
    const second = await create(owner, { name: 'unique-2', imageName: 'x' });
    const rename = await call(owner, 'PATCH', `/v1/templates/${second.id}`, { name: 'unique' });
    expect(rename.statusCode).toBe(400);
    expect(rename.json().message).toBe('name: a template named "unique" already exists');
    expect((await call(owner, 'GET', `/v1/templates/${first.id}`)).json()).toMatchObject({ name: 'unique' });
  });

  it("refuses another account's registry auth", async () => {
    const theirs = (
      await call(other, 'POST', '/v1/containerregistryauth', { name: 'theirs', username: 'u', password: 'p' })
    ).json() as { id: string };
    const res = await call(owner, 'POST', '/v1/templates', {
      name: 'stolen-auth',
      imageName: 'x',
      containerRegistryAuthId: theirs.id,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(`containerRegistryAuthId: container registry auth "${theirs.id}" not found`);
    const mine = await create(owner, { name: 'auth-later', imageName: 'x' });
    const update = await call(owner, 'PATCH', `/v1/templates/${mine.id}`, { containerRegistryAuthId: theirs.id });
    expect(update.statusCode).toBe(400);
  });

  describe('in-use rules', () => {
    it('refuses to delete a template a live Pod or an endpoint uses, naming them', async () => {
      const tpl = await create(owner, { name: 'used', imageName: 'x', isPublic: true });
      await gw.db.pod.create({
        data: { id: 'pod-uses-tpl', accountId: owner.accountId, image: 'x', templateId: tpl.id },
      });
      await gw.db.endpoint.create({
        data: { id: 'ep-uses-tpl', accountId: owner.accountId, name: 'e', templateId: tpl.id },
      });
      await gw.db.endpoint.create({
        data: { id: 'ep-theirs-uses-tpl', accountId: other.accountId, name: 'e', templateId: tpl.id },
      });
      const podOfOther = await gw.db.pod.create({
        data: { id: 'pod-theirs-uses-tpl', accountId: other.accountId, image: 'x', templateId: tpl.id },
      });

      const refused = await call(owner, 'DELETE', `/v1/templates/${tpl.id}`);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().message).toBe(
        'Template is in use by pods pod-uses-tpl; endpoints ep-uses-tpl and 1 endpoints of other accounts; delete or change them first',
      );
      await gw.db.pod.update({ where: { id: 'pod-uses-tpl' }, data: { desiredStatus: 'TERMINATED' } });
      await gw.db.endpoint.deleteMany({ where: { id: { in: ['ep-uses-tpl', 'ep-theirs-uses-tpl'] } } });

      expect((await call(owner, 'DELETE', `/v1/templates/${tpl.id}`)).statusCode).toBe(204);
      // Pods keep their own copy of the settings; only the link to the deleted template goes.
      const pods = await gw.db.pod.findMany({ where: { id: { in: ['pod-uses-tpl', podOfOther.id] } } });
      expect(pods.map((p) => p.templateId)).toEqual([null, null]);
    });

    it('gives endpoints on the template a new version when what workers run changes', async () => {
      const tpl = await create(owner, { name: 'rolling', imageName: 'app:1' });
      await gw.db.endpoint.create({
        data: { id: 'ep-rolling', accountId: owner.accountId, name: 'r', templateId: tpl.id },
      });
      const version = async () => (await gw.db.endpoint.findUniqueOrThrow({ where: { id: 'ep-rolling' } })).version;
      const before = await version();
      await call(owner, 'PATCH', `/v1/templates/${tpl.id}`, { name: 'rolling-renamed', readme: 'docs' });
      expect(await version()).toBe(before);
      await call(owner, 'PATCH', `/v1/templates/${tpl.id}`, { imageName: 'app:2' });
      expect(await version()).toBe(before + 1);
      await call(owner, 'POST', `/v1/templates/${tpl.id}/update`, { env: { A: 'b' } });
      expect(await version()).toBe(before + 2);
    });
  });

  it('answers NUL characters in ids and fields with 4xx, never 5xx', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await call(owner, method, '/v1/templates/a%00b', method === 'PATCH' ? { name: 'x' } : undefined);
      expect({ method, status: res.statusCode }).toEqual({ method, status: 404 });
    }
    for (const payload of [
      { name: 'a\u0000b', imageName: 'x' },
      { name: 'ok', imageName: 'x\u0000' },
      { name: 'ok', imageName: 'x', env: { A: '\u0000' } },
      { name: 'ok', imageName: 'x', containerRegistryAuthId: '\u0000' },
      { name: 'ok', imageName: 'x', dockerStartCmd: ['\u0000'] },
    ]) {
      const res = await call(owner, 'POST', '/v1/templates', payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(/must not contain NUL characters/);
    }
  });
});
