import { seedCatalog } from '@runplane/catalog';
import { postGraphql } from './fixtures/graphql/client';
import { CTL_MYSELF_PUBKEY, PY_GET_USER } from './fixtures/graphql/runpod-texts';
import { bearer, type GatewayHarness, startGateway } from './harness';

const ED25519 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXGDN/SclOozk1xsDztpmhGiKkkrfQB9SKoO8dSIQQZ me@example.com';
const RSA = 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 laptop';

describe('GraphQL myself { id pubKey networkVolumes }', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };

  beforeAll(async () => {
    gw = await startGateway('graphql-myself');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    other = await gw.accountWithKey();
  });

  afterAll(() => gw.close());

  const rest = (secret: string, method: 'POST' | 'PUT', url: string, payload: object) =>
    gw.inject({ method, url, headers: bearer(secret), payload });

  it("answers runpod-python's get_user with the account's keys newline-joined and its network volumes", async () => {
    expect((await rest(owner.secret, 'PUT', '/v2/account/ssh-keys', { keys: [ED25519, RSA] })).statusCode).toBe(200);
    const created = await rest(owner.secret, 'POST', '/v1/networkvolumes', {
      name: 'gql-data',
      size: 20,
      dataCenterId: 'EU-RO-1',
    });
    expect(created.statusCode).toBe(200);
    const volumeId = created.json<{ id: string }>().id;
    await rest(other.secret, 'POST', '/v1/networkvolumes', { name: 'not-mine', size: 10, dataCenterId: 'EU-RO-1' });

    const res = await postGraphql(gw, { key: owner.secret, query: PY_GET_USER });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: {
        data: {
          myself: {
            id: owner.accountId,
            pubKey: `${ED25519}\n${RSA}`,
            networkVolumes: [{ id: volumeId, name: 'gql-data', size: 20, dataCenterId: 'EU-RO-1' }],
          },
        },
      },
    });
  });

  it("answers runpodctl's ssh read with variables: {} and shows another tenant only its own data", async () => {
    const mine = await postGraphql(gw, { key: owner.secret, query: CTL_MYSELF_PUBKEY, variables: {} });
    expect(mine.body).toEqual({ data: { myself: { id: owner.accountId, pubKey: `${ED25519}\n${RSA}` } } });
    const theirs = await postGraphql(gw, { key: other.secret, query: PY_GET_USER });
    expect(theirs.body.data?.myself).toEqual({
      id: other.accountId,
      pubKey: '',
      networkVolumes: [{ id: expect.any(String), name: 'not-mine', size: 10, dataCenterId: 'EU-RO-1' }],
    });
  });
});
