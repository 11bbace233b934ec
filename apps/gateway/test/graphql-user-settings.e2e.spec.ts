import { seedCatalog } from '@runplane/catalog';
import { postGraphql } from './fixtures/graphql/client';
import { CTL_MYSELF_PUBKEY, CTL_UPDATE_USER_SETTINGS, pyUpdateUserSettings } from './fixtures/graphql/runpod-texts';
import { bearer, type GatewayHarness, startGateway } from './harness';

const K0 = 'ssh-ed25519 AAAA... gql-k0';
const K1 = 'ssh-ed25519 AAAA... gql-k1';
const RSA = 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 laptop';

describe('GraphQL updateUserSettings (SSH keys)', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };

  const restKeys = async (secret: string) =>
    (await gw.inject({ method: 'GET', url: '/v2/account/ssh-keys', headers: bearer(secret) })).json<{
      keys: string[];
    }>().keys;

  beforeAll(async () => {
    gw = await startGateway('graphql-user-settings');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    other = await gw.accountWithKey();
  });

  afterAll(() => gw.close());

  it("replaces the account's keys from runpod-python's inline text (\\n escapes) and answers id and pubKey", async () => {
    const res = await postGraphql(gw, { key: owner.secret, query: pyUpdateUserSettings(`${K0}\\n${K1}`) });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: { data: { updateUserSettings: { id: owner.accountId, pubKey: `${K0}\n${K1}` } } },
    });
    expect(await restKeys(owner.secret)).toEqual([K0, K1]);
    expect(await restKeys(other.secret)).toEqual([]);
  });

  it("takes runpodctl's read-modify-write with keys joined by blank lines, in variables", async () => {
    const res = await postGraphql(gw, {
      key: owner.secret,
      query: CTL_UPDATE_USER_SETTINGS,
      variables: { input: { pubKey: `${K0}\n\n${RSA}` } },
    });
    expect(res.body).toEqual({ data: { updateUserSettings: { id: owner.accountId } } });
    const read = await postGraphql(gw, { key: owner.secret, query: CTL_MYSELF_PUBKEY });
    expect(read.body).toEqual({ data: { myself: { id: owner.accountId, pubKey: `${K0}\n${RSA}` } } });
  });

  it('refuses a line that is not a public key with HTTP 200 and the message PUT /v2/account/ssh-keys gives', async () => {
    const res = await postGraphql(gw, {
      key: owner.secret,
      query: CTL_UPDATE_USER_SETTINGS,
      variables: { input: { pubKey: `${K0}\n\nnot a key` } },
    });
    const rest = await gw.inject({
      method: 'PUT',
      url: '/v2/account/ssh-keys',
      headers: bearer(owner.secret),
      payload: { keys: [K0, 'not a key'] },
    });
    expect(rest.statusCode).toBe(422);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ updateUserSettings: null });
    expect(res.body.errors?.[0]?.message).toBe(
      'keys.1: must be an authorized_keys line: <type> <base64-key> [comment]',
    );
    expect(rest.json<{ detail: string }>().detail).toContain('must be an authorized_keys line');
    expect(await restKeys(owner.secret)).toEqual([K0, RSA]);
  });
});
