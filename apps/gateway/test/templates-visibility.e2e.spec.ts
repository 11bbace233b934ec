import type { TemplateDto } from '@runplane/contracts';
import type { Caller, GatewayHarness } from './harness';
import { startTemplatesWorld, templateRequests } from './templates-fixture';

describe('v1 /templates', () => {
  let gw: GatewayHarness;
  let owner: Caller;
  let other: Caller;
  const { call, create, idsOf } = templateRequests(() => gw);

  beforeAll(async () => ({ gw, owner, other } = await startTemplatesWorld('templates-visibility')));
  afterAll(() => gw.close());

  describe('visibility and filters', () => {
    let own: TemplateDto;
    let bound: TemplateDto;
    let theirPublic: TemplateDto;
    let theirPrivate: TemplateDto;
    let platform: TemplateDto;

    beforeAll(async () => {
      own = await create(owner, { name: 'vis-own', imageName: 'x' });
      bound = await create(owner, { name: 'vis-bound', imageName: 'x', isServerless: true });
      await gw.db.endpoint.create({
        data: { id: 'ep-vis-bound', accountId: owner.accountId, name: 'bound', templateId: bound.id },
      });
      const auth = (
        await call(other, 'POST', '/v1/containerregistryauth', { name: 'vis-auth', username: 'u', password: 'p' })
      ).json() as { id: string };
      theirPublic = await create(other, {
        name: 'vis-public',
        imageName: 'x',
        isPublic: true,
        containerRegistryAuthId: auth.id,
      });
      theirPrivate = await create(other, { name: 'vis-private', imageName: 'x' });
      const operator = await gw.accountWithKey('ALL');
      const row = await gw.db.template.create({
        data: {
          id: 'tpl-platform',
          accountId: operator.accountId,
          name: 'platform',
          imageName: 'runplane/official:1',
          isRunpod: true,
        },
      });
      platform = (await call(owner, 'GET', `/v1/templates/${row.id}`)).json() as TemplateDto;
    });

    const list = async (query: string): Promise<string[]> => {
      const res = await call(owner, 'GET', `/v1/templates${query}`);
      expect(res.statusCode).toBe(200);
      return idsOf(res.json());
    };

    it('lists only the caller’s own templates, without endpoint-bound ones, by default', async () => {
      const ids = await list('');
      expect(ids).toContain(own.id);
      for (const hidden of [bound.id, theirPublic.id, theirPrivate.id, platform.id]) expect(ids).not.toContain(hidden);
      expect(await list('?includePublicTemplates=false&includeRunpodTemplates=0')).toEqual(ids);
    });

    it('includeEndpointBoundTemplates adds templates the caller’s endpoints use', async () => {
      expect(await list('?includeEndpointBoundTemplates=true')).toEqual(expect.arrayContaining([own.id, bound.id]));
    });

    it('includePublicTemplates adds other accounts’ public templates, never private ones', async () => {
      const ids = await list('?includePublicTemplates=true');
      expect(ids).toEqual(expect.arrayContaining([own.id, theirPublic.id]));
      expect(ids).not.toContain(theirPrivate.id);
      expect(ids).not.toContain(platform.id);
      const listed = (
        (await call(owner, 'GET', '/v1/templates?includePublicTemplates=true')).json() as TemplateDto[]
      ).find((t) => t.id === theirPublic.id);
      expect(listed).toMatchObject({ isPublic: true, containerRegistryAuthId: null });
    });

    it('includeRunpodTemplates adds platform templates', async () => {
      const ids = await list('?includeRunpodTemplates=TRUE');
      expect(ids).toEqual(expect.arrayContaining([own.id, platform.id]));
      expect(ids).not.toContain(theirPublic.id);
      expect(platform).toMatchObject({ id: 'tpl-platform', isRunpod: true, imageName: 'runplane/official:1' });
    });

    it('reads public and platform templates by id (flags accepted), hides private ones', async () => {
      const pub = await call(
        owner,
        'GET',
        `/v1/templates/${theirPublic.id}?includePublicTemplates=true&includeEndpointBoundTemplates=true`,
      );
      expect(pub.statusCode).toBe(200);
      expect(pub.json()).toEqual({ ...theirPublic, containerRegistryAuthId: null });
      expect((await call(owner, 'GET', `/v1/templates/${platform.id}?includeRunpodTemplates=true`)).statusCode).toBe(
        200,
      );
      expect((await call(owner, 'GET', `/v1/templates/${bound.id}`)).statusCode).toBe(200);
      const hidden = await call(owner, 'GET', `/v1/templates/${theirPrivate.id}`);
      expect(hidden.statusCode).toBe(404);
      expect(hidden.json()).toMatchObject({ message: 'Template not found' });
      expect(hidden.body).not.toContain('vis-private');
    });

    it('rejects flags that are not booleans', async () => {
      for (const url of [
        '/v1/templates?includePublicTemplates=maybe',
        `/v1/templates/${own.id}?includeRunpodTemplates=2`,
      ]) {
        const res = await call(owner, 'GET', url);
        expect(res.statusCode).toBe(400);
        expect(res.json().message).toMatch(/^include(Public|Runpod)Templates: /);
      }
    });

    it('lets only the owner change or delete a public template (404 for everyone else)', async () => {
      for (const [method, url] of [
        ['PATCH', `/v1/templates/${theirPublic.id}`],
        ['POST', `/v1/templates/${theirPublic.id}/update`],
        ['DELETE', `/v1/templates/${theirPublic.id}`],
        ['PATCH', `/v1/templates/${theirPrivate.id}`],
        ['POST', `/v1/templates/${theirPrivate.id}/update`],
        ['DELETE', `/v1/templates/${theirPrivate.id}`],
        ['PATCH', `/v1/templates/${platform.id}`],
        ['DELETE', `/v1/templates/${platform.id}`],
      ] as const) {
        const res = await call(owner, method, url, method === 'DELETE' ? undefined : { name: 'hijacked' });
        expect({ method, url, status: res.statusCode, body: res.json() }).toEqual({
          method,
          url,
          status: 404,
          body: expect.objectContaining({ message: 'Template not found' }),
        });
      }
      expect((await call(other, 'GET', `/v1/templates/${theirPublic.id}`)).json()).toEqual(theirPublic);
      expect((await call(other, 'GET', `/v1/templates/${theirPrivate.id}`)).json()).toEqual(theirPrivate);
    });
  });
});
