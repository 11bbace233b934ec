import { seedCatalog } from '@runplane/catalog';
import { postGraphql } from './fixtures/graphql/client';
import { CTL_MYSELF_PUBKEY, PY_GET_GPUS } from './fixtures/graphql/runpod-texts';
import { type GatewayHarness, startGateway } from './harness';

describe('POST /graphql: transport, keys and the error contract', () => {
  let gw: GatewayHarness;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    gw = await startGateway('graphql-transport');
    await seedCatalog(gw.db);
    ({ secret: key, accountId } = await gw.accountWithKey());
  });

  afterAll(() => gw.close());

  it('takes the key as a bearer token or as ?api_key=', async () => {
    for (const placement of ['bearer', 'query'] as const) {
      const res = await postGraphql(gw, { key, query: CTL_MYSELF_PUBKEY, placement, variables: null });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { data: { myself: { id: accountId, pubKey: '' } } },
      });
    }
  });

  it('answers 401 for a missing or unknown key (runpod-python raises AuthenticationError only then)', async () => {
    for (const placement of ['bearer', 'query'] as const) {
      const res = await postGraphql(gw, { key: 'rpa_unknown', query: PY_GET_GPUS, placement });
      expect(res.status).toBe(401);
    }
    const none = await gw.inject({ method: 'POST', url: '/graphql', payload: { query: PY_GET_GPUS } });
    expect(none.statusCode).toBe(401);
  });

  it('answers a body that is not a GraphQL request with a 400', async () => {
    const headers = { authorization: `Bearer ${key}` };
    for (const payload of [{}, { query: '' }, { query: PY_GET_GPUS, variables: [1] }, { query: 7 }]) {
      const res = await gw.inject({ method: 'POST', url: '/graphql', headers, payload });
      expect(res.statusCode).toBe(400);
    }
  });

  it('refuses a syntax error, an unknown field and introspection with HTTP 200 and errors[].message', async () => {
    const texts = [
      'query { gpuTypes { id ',
      'query { gpuTypes { id price } }',
      'query { __schema { types { name } } }',
    ];
    for (const query of texts) {
      const res = await postGraphql(gw, { key, query });
      expect(res.status).toBe(200);
      expect(res.body.data ?? null).toBeNull();
      expect(res.body.errors?.[0]?.message).toEqual(expect.any(String));
    }
    const unknown = await postGraphql(gw, { key, query: 'query { gpuTypes { id price } }' });
    expect(unknown.body.errors?.[0]?.message).toBe('Cannot query field "price" on type "GpuType".');
  });

  it('refuses a mutation from a read-only key with HTTP 200 and a message', async () => {
    const readOnly = await gw.accountWithKey('READ_ONLY');
    const res = await postGraphql(gw, {
      key: readOnly.secret,
      query: 'mutation { podStop(input: {podId: "x"}) { id } }',
    });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: { data: null, errors: [{ message: 'This API key is read-only' }] },
    });
    const reads = await postGraphql(gw, { key: readOnly.secret, query: CTL_MYSELF_PUBKEY });
    expect(reads.body).toEqual({ data: { myself: { id: readOnly.accountId, pubKey: '' } } });
  });
});
