import { CatalogRepository, seedCatalog } from '@runplane/catalog';
import { podCreateInput } from '@runplane/contracts';
import {
  PodRepository,
  PodsService,
  RegistryAuthRepository,
  TemplatesRepository,
  TemplatesService,
} from '@runplane/workloads';
import { type GatewayHarness, startGateway } from './harness';
import { problemOf, type V2Caller, v2Caller } from './v2-helpers';

const ED25519 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXGDN/SclOozk1xsDztpmhGiKkkrfQB9SKoO8dSIQQZ me@example.com';
const RSA = 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 laptop';
const ECDSA = 'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTY=';

describe('/v2/account/ssh-keys', () => {
  let gw: GatewayHarness;
  let owner: V2Caller;
  let other: V2Caller;

  beforeAll(async () => {
    gw = await startGateway('v2-account');
    await seedCatalog(gw.db);
    owner = await v2Caller(gw);
    other = await v2Caller(gw);
  });

  afterAll(async () => {
    await gw.close();
  });

  async function podEnv(caller: V2Caller, env?: Record<string, string>): Promise<Record<string, string>> {
    const res = await caller.call('POST', '/v1/pods', {
      imageName: 'alpine:3',
      computeType: 'CPU',
      cpuFlavorIds: ['cpu3g'],
      vcpuCount: 2,
      ...(env ? { env } : {}),
    });
    expect(res.statusCode).toBe(201);
    return res.json<{ env: Record<string, string> }>().env;
  }

  it('starts empty, PUT replaces the whole set in order, [] removes them all', async () => {
    expect((await owner.call('GET', '/v2/account/ssh-keys')).json()).toEqual({ keys: [] });
    const put = await owner.call('PUT', '/v2/account/ssh-keys', { keys: [ED25519, RSA] });
    expect({ status: put.statusCode, body: put.json() }).toEqual({ status: 200, body: { keys: [ED25519, RSA] } });
    expect((await owner.call('PUT', '/v2/account/ssh-keys', { keys: [ECDSA, ED25519] })).json()).toEqual({
      keys: [ECDSA, ED25519],
    });
    expect((await owner.call('GET', '/v2/account/ssh-keys')).json()).toEqual({ keys: [ECDSA, ED25519] });
    expect((await owner.call('PUT', '/v2/account/ssh-keys', { keys: [] })).json()).toEqual({ keys: [] });
    expect((await owner.call('GET', '/v2/account/ssh-keys')).json()).toEqual({ keys: [] });
  });

  it('gives a new Pod the account keys in PUBLIC_KEY, one a line, unless its env sets one', async () => {
    expect((await podEnv(owner, { A: '1' })).PUBLIC_KEY).toBeUndefined();
    await owner.call('PUT', '/v2/account/ssh-keys', { keys: [ED25519, RSA] });
    expect(await podEnv(owner, { A: '1' })).toEqual({ A: '1', PUBLIC_KEY: `${ED25519}\n${RSA}` });
    expect((await podEnv(owner, { PUBLIC_KEY: 'mine' })).PUBLIC_KEY).toBe('mine');
    const tpl = await owner.call('POST', '/v2/templates', { name: 'ssh-tpl', image: 'alpine:3', env: { T: '1' } });
    const fromTemplate = await owner.call('POST', '/v1/pods', {
      templateId: tpl.json<{ id: string }>().id,
      computeType: 'CPU',
      cpuFlavorIds: ['cpu3g'],
      vcpuCount: 2,
    });
    expect(fromTemplate.json<{ env: Record<string, string> }>().env).toEqual({
      T: '1',
      PUBLIC_KEY: `${ED25519}\n${RSA}`,
    });
  });

  it('leaves PUBLIC_KEY out when the Pod template turns SSH off, or its creator asks to (v2 startSsh: false)', async () => {
    await owner.call('PUT', '/v2/account/ssh-keys', { keys: [ED25519] });
    const tpl = await owner.call('POST', '/v2/templates', { name: 'no-ssh', image: 'alpine:3', startSsh: false });
    const fromTemplate = await owner.call('POST', '/v1/pods', {
      templateId: tpl.json<{ id: string }>().id,
      computeType: 'CPU',
      cpuFlavorIds: ['cpu3g'],
      vcpuCount: 2,
    });
    expect(fromTemplate.json<{ env: Record<string, string> }>().env).toEqual({});
    const templates = new TemplatesService(new TemplatesRepository(gw.db), new RegistryAuthRepository(gw.db));
    const pods = new PodsService(new PodRepository(gw.db), new CatalogRepository(gw.db), templates);
    const input = { imageName: 'alpine:3', computeType: 'CPU', cpuFlavorIds: ['cpu3g'], vcpuCount: 2 };
    const parsed = podCreateInput.parse(input);
    expect((await pods.create(owner.accountId, parsed, { sshKeys: false })).env).toEqual({});
    expect((await pods.create(owner.accountId, parsed)).env).toEqual({ PUBLIC_KEY: ED25519 });
  });

  it('answers invalid bodies 422 naming each key', async () => {
    const bad = problemOf(
      await owner.call('PUT', '/v2/account/ssh-keys', { keys: [ED25519, 'not a key', 'ssh-rsa'] }),
      422,
    );
    expect(bad.errors).toEqual([
      '$.keys[1]: must be an authorized_keys line: <type> <base64-key> [comment]',
      '$.keys[2]: must be an authorized_keys line: <type> <base64-key> [comment]',
    ]);
    expect(problemOf(await owner.call('PUT', '/v2/account/ssh-keys', {}), 422).errors).toEqual([
      "$: missing property 'keys'",
    ]);
    expect(problemOf(await owner.call('PUT', '/v2/account/ssh-keys', { keys: [], pubKey: 'x' }), 422).errors).toEqual([
      "$: additional property 'pubKey' not allowed",
    ]);
    expect(problemOf(await owner.call('POST', '/v2/account/ssh-keys', { keys: [] }), 405).detail).toMatch(
      /allowed: GET, PUT/,
    );
    expect(problemOf(await owner.call('GET', '/v2/account'), 404).status).toBe(404);
  });

  it('keeps each account keys to itself, on reads, writes and the Pods they reach', async () => {
    await owner.call('PUT', '/v2/account/ssh-keys', { keys: [ED25519] });
    expect((await other.call('GET', '/v2/account/ssh-keys')).json()).toEqual({ keys: [] });
    expect((await podEnv(other, { B: '2' })).PUBLIC_KEY).toBeUndefined();
    await other.call('PUT', '/v2/account/ssh-keys', { keys: [RSA] });
    expect((await owner.call('GET', '/v2/account/ssh-keys')).json()).toEqual({ keys: [ED25519] });
    expect((await other.call('GET', '/v2/account/ssh-keys')).json()).toEqual({ keys: [RSA] });
  });
});
