import type { ApiKeyCreatedDto, ApiKeyDto } from '@runplane/contracts';
import { bearer, type GatewayHarness, startGateway } from './harness';

describe('v1 /apikeys: authentication, scopes and tenancy', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; keyId: string; secret: string };

  beforeAll(async () => {
    gw = await startGateway('apikeys');
    owner = await gw.accountWithKey('ALL');
  });
  afterAll(() => gw.close());

  const list = (headers: Record<string, string>) => gw.inject({ method: 'GET', url: '/v1/apikeys', headers });

  it('accepts a Bearer key and a raw key', async () => {
    const withBearer = await list(bearer(owner.secret));
    expect(withBearer.statusCode).toBe(200);
    expect((withBearer.json() as ApiKeyDto[]).map((key) => key.id)).toContain(owner.keyId);
    const raw = await list({ authorization: owner.secret });
    expect(raw.statusCode).toBe(200);
    const lowercase = await list({ authorization: `bearer ${owner.secret}` });
    expect(lowercase.statusCode).toBe(200);
  });

  it('answers a missing, malformed, unknown or disabled key with 401 in the v1 error shape', async () => {
    const missing = await list({});
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toMatchObject({ message: 'Missing API key', code: 'UNAUTHORIZED' });
    const malformed = await list(bearer('not-a-key'));
    expect(malformed.statusCode).toBe(401);
    expect(malformed.json()).toMatchObject({ message: 'Invalid API key' });
    const unknown = await list(bearer(`rpl_${'A'.repeat(43)}`));
    expect(unknown.statusCode).toBe(401);

    const victim = await gw.accountWithKey('ALL');
    const disable = await gw.inject({
      method: 'PATCH',
      url: `/v1/apikeys/${victim.keyId}`,
      headers: bearer(victim.secret),
      payload: { disabled: true },
    });
    expect(disable.statusCode).toBe(200);
    expect(disable.json()).toMatchObject({ disabled: true });
    const afterDisable = await list(bearer(victim.secret));
    expect(afterDisable.statusCode).toBe(401);
    expect(afterDisable.json()).toMatchObject({ message: 'Invalid API key' });
  });

  it('lets READ_ONLY keys read but answers their writes with 401', async () => {
    const readOnly = await gw.accountWithKey('READ_ONLY');
    expect((await list(bearer(readOnly.secret))).statusCode).toBe(200);
    const get = await gw.inject({
      method: 'GET',
      url: `/v1/apikeys/${readOnly.keyId}`,
      headers: bearer(readOnly.secret),
    });
    expect(get.statusCode).toBe(200);
    const create = await gw.inject({
      method: 'POST',
      url: '/v1/apikeys',
      headers: bearer(readOnly.secret),
      payload: { name: 'x' },
    });
    expect(create.statusCode).toBe(401);
    expect(create.json()).toMatchObject({ message: 'This API key is read-only' });
    const del = await gw.inject({
      method: 'DELETE',
      url: `/v1/apikeys/${readOnly.keyId}`,
      headers: bearer(readOnly.secret),
    });
    expect(del.statusCode).toBe(401);
    expect(await gw.db.apiKey.count({ where: { accountId: readOnly.accountId } })).toBe(1);
  });

  it('keeps RESTRICTED keys out of everything but their endpoints', async () => {
    const restricted = await gw.accountWithKey('RESTRICTED', ['ep1']);
    const res = await list(bearer(restricted.secret));
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    const get = await gw.inject({
      method: 'GET',
      url: `/v1/apikeys/${restricted.keyId}`,
      headers: bearer(restricted.secret),
    });
    expect(get.statusCode).toBe(401);
  });

  it("answers another account's key with 404 and never its data", async () => {
    const other = await gw.accountWithKey('ALL');
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await gw.inject({
        method,
        url: `/v1/apikeys/${other.keyId}`,
        headers: bearer(owner.secret),
        ...(method === 'PATCH' ? { payload: { name: 'stolen' } } : {}),
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ message: 'API key not found', code: 'NOT_FOUND' });
      expect(res.body).not.toContain(other.accountId);
    }
    const listed = (await list(bearer(owner.secret))).json() as ApiKeyDto[];
    expect(listed.map((key) => key.id)).not.toContain(other.keyId);
    const untouched = await gw.db.apiKey.findUniqueOrThrow({ where: { id: other.keyId } });
    expect(untouched.name).toBe('ALL key');
  });
});

describe('v1 /apikeys: lifecycle', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; keyId: string; secret: string };

  beforeAll(async () => {
    gw = await startGateway('apikeys-lifecycle');
    owner = await gw.accountWithKey('ALL');
  });
  afterAll(() => gw.close());

  it('returns the secret once on create and never again', async () => {
    const created = await gw.inject({
      method: 'POST',
      url: '/v1/apikeys',
      headers: bearer(owner.secret),
      payload: { name: 'ci', scope: 'READ_ONLY' },
    });
    expect(created.statusCode).toBe(201);
    const body = created.json() as ApiKeyCreatedDto;
    expect(body).toMatchObject({ name: 'ci', scope: 'READ_ONLY', disabled: false, allowedEndpointIds: [] });
    expect(body.key).toMatch(/^rpl_/);
    expect(body.key.startsWith(body.prefix)).toBe(true);

    const listed = await gw.inject({ method: 'GET', url: '/v1/apikeys', headers: bearer(owner.secret) });
    expect(listed.body).not.toContain(body.key);
    expect(listed.body).not.toContain('"key"');
    const row = await gw.db.apiKey.findUniqueOrThrow({ where: { id: body.id } });
    expect(row.hash).not.toContain(body.key);
    expect(row.hash).toMatch(/^[0-9a-f]{64}$/);

    const useIt = await gw.inject({ method: 'GET', url: '/v1/apikeys', headers: bearer(body.key) });
    expect(useIt.statusCode).toBe(200);
    const used = await gw.inject({ method: 'GET', url: `/v1/apikeys/${body.id}`, headers: bearer(owner.secret) });
    expect((used.json() as ApiKeyDto).lastUsedAt).not.toBeNull();
  });

  it('renames, changes scope, disables and enables with PATCH (and POST /update)', async () => {
    const { id, key } = (
      await gw.inject({ method: 'POST', url: '/v1/apikeys', headers: bearer(owner.secret), payload: { name: 'a' } })
    ).json() as ApiKeyCreatedDto;
    const patch = (payload: object, url = `/v1/apikeys/${id}`, method: 'PATCH' | 'POST' = 'PATCH') =>
      gw.inject({ method, url, headers: bearer(owner.secret), payload });

    expect((await patch({ name: 'renamed' })).json()).toMatchObject({ name: 'renamed', scope: 'ALL' });
    expect((await patch({ scope: 'RESTRICTED', allowedEndpointIds: ['ep1', 'ep2'] })).json()).toMatchObject({
      scope: 'RESTRICTED',
      allowedEndpointIds: ['ep1', 'ep2'],
    });
    expect((await patch({ disabled: true }, `/v1/apikeys/${id}/update`, 'POST')).json()).toMatchObject({
      disabled: true,
    });
    expect((await gw.inject({ method: 'GET', url: '/v1/apikeys', headers: bearer(key) })).statusCode).toBe(401);
    expect((await patch({ disabled: false, scope: 'ALL' })).json()).toMatchObject({
      disabled: false,
      scope: 'ALL',
      allowedEndpointIds: [],
    });
    expect((await gw.inject({ method: 'GET', url: '/v1/apikeys', headers: bearer(key) })).statusCode).toBe(200);
  });

  it('deletes a key with 204, after which it no longer authenticates', async () => {
    const { id, key } = (
      await gw.inject({ method: 'POST', url: '/v1/apikeys', headers: bearer(owner.secret), payload: { name: 'temp' } })
    ).json() as ApiKeyCreatedDto;
    const del = await gw.inject({ method: 'DELETE', url: `/v1/apikeys/${id}`, headers: bearer(owner.secret) });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await gw.inject({ method: 'GET', url: '/v1/apikeys', headers: bearer(key) })).statusCode).toBe(401);
    const again = await gw.inject({ method: 'DELETE', url: `/v1/apikeys/${id}`, headers: bearer(owner.secret) });
    expect(again.statusCode).toBe(404);
  });

  it('rejects bad input with 400 naming the field, writing nothing', async () => {
    const before = await gw.db.apiKey.count({ where: { accountId: owner.accountId } });
    const post = (payload: string | object, headers: Record<string, string> = {}) =>
      gw.inject({
        method: 'POST',
        url: '/v1/apikeys',
        headers: { ...bearer(owner.secret), 'content-type': 'application/json', ...headers },
        payload,
      });
    const malformed = await post('{"name":');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: 'MALFORMED_JSON', message: expect.any(String) });
    const wrongType = await post({ name: 42 });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().message).toMatch(/^name: /);
    const badEnum = await post({ name: 'x', scope: 'SUPERUSER' });
    expect(badEnum.statusCode).toBe(400);
    expect(badEnum.json().message).toMatch(/^scope: /);
    const unknownField = await post({ name: 'x', admin: true });
    expect(unknownField.statusCode).toBe(400);
    expect(unknownField.json().message).toBe('Unknown field: admin');
    const tooLong = await post({ name: 'x'.repeat(192) });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().message).toMatch(/^name: /);
    const endpointsWithoutRestricted = await post({ name: 'x', allowedEndpointIds: ['ep1'] });
    expect(endpointsWithoutRestricted.statusCode).toBe(400);
    expect(endpointsWithoutRestricted.json().message).toMatch(/^allowedEndpointIds: /);
    const oversized = await post({ name: 'x'.repeat(70 * 1024) });
    expect(oversized.statusCode).toBe(413);
    expect(oversized.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) });
    expect(await gw.db.apiKey.count({ where: { accountId: owner.accountId } })).toBe(before);
  });
});
