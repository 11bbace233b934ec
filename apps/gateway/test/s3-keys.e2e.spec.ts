import type { S3KeyCreatedDto, S3KeyDto } from '@runplane/contracts';
import { type GatewayHarness, startGateway } from './harness';
import { problemOf, type V2Caller, v2Caller } from './v2-helpers';

describe('S3 access keys: v1 /s3keys and v2 /account/s3-keys', () => {
  let gw: GatewayHarness;
  let owner: V2Caller;
  let other: V2Caller;

  beforeAll(async () => {
    gw = await startGateway('s3-keys');
    owner = await v2Caller(gw);
    other = await v2Caller(gw);
  });
  afterAll(() => gw.close());

  it('creates a key through v1 with its secret shown once and stored sealed', async () => {
    const created = await owner.call('POST', '/v1/s3keys', { name: 'datasets' });
    expect(created.statusCode).toBe(201);
    const key = created.json<S3KeyCreatedDto>();
    expect(key).toEqual({
      id: expect.any(String),
      name: 'datasets',
      accessKeyId: expect.stringMatching(/^RPS3[A-Z2-7]{16}$/),
      secretAccessKey: expect.stringMatching(/^[A-Za-z0-9_-]{40}$/),
      createdAt: expect.any(String),
    });
    const row = await gw.db.s3Key.findUniqueOrThrow({ where: { id: key.id } });
    expect(row.secretSealed).not.toContain(key.secretAccessKey);

    const v1List = (await owner.call('GET', '/v1/s3keys')).json<S3KeyDto[]>();
    expect(v1List).toEqual([{ id: key.id, name: 'datasets', accessKeyId: key.accessKeyId, createdAt: key.createdAt }]);
    const v2List = await owner.call('GET', '/v2/account/s3-keys');
    expect(v2List.statusCode).toBe(200);
    expect(v2List.json()).toEqual({ s3Keys: v1List });
    expect((await other.call('GET', '/v1/s3keys')).json()).toEqual([]);
  });

  it("creates through v2 and revokes through either API, never another account's key", async () => {
    const created = await owner.call('POST', '/v2/account/s3-keys', { name: 'weights' });
    expect(created.statusCode).toBe(201);
    const key = created.json<S3KeyCreatedDto>();
    expect(key.secretAccessKey).toHaveLength(40);

    expect((await other.call('DELETE', `/v2/account/s3-keys/${key.id}`)).statusCode).toBe(404);
    expect((await other.call('DELETE', `/v1/s3keys/${key.id}`)).statusCode).toBe(404);
    expect((await owner.call('DELETE', `/v2/account/s3-keys/${key.id}`)).statusCode).toBe(204);
    problemOf(await owner.call('DELETE', `/v2/account/s3-keys/${key.id}`), 404);
    const names = (await owner.call('GET', '/v1/s3keys')).json<S3KeyDto[]>().map((k) => k.name);
    expect(names).not.toContain('weights');
    expect(await gw.db.s3Key.count({ where: { id: key.id } })).toBe(0);

    const v1Key = (await owner.call('POST', '/v1/s3keys', { name: 'scratch' })).json<S3KeyCreatedDto>();
    expect((await owner.call('DELETE', `/v1/s3keys/${v1Key.id}`)).statusCode).toBe(204);
    expect((await owner.call('DELETE', `/v1/s3keys/${v1Key.id}`)).statusCode).toBe(404);
  });

  it("answers a bad body in each API's shape and a read-only key's create with 401", async () => {
    const v1 = await owner.call('POST', '/v1/s3keys', { name: '' });
    expect(v1.statusCode).toBe(400);
    expect(v1.json()).toMatchObject({ message: expect.stringContaining('name') });
    problemOf(await owner.call('POST', '/v2/account/s3-keys', { name: 'x', extra: 1 }), 422);
    const readOnly = await v2Caller(gw, 'READ_ONLY');
    expect((await readOnly.call('GET', '/v1/s3keys')).statusCode).toBe(200);
    expect((await readOnly.call('POST', '/v1/s3keys', { name: 'nope' })).statusCode).toBe(401);
  });
});
