import { createAccountsServices } from '@runplane/accounts';
import { bearer, type JobRouterHarness, raw, startJobRouter } from './harness';

describe('job-router auth', () => {
  let h: JobRouterHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };
  let endpointId: string;
  let otherEndpointId: string;

  beforeAll(async () => {
    h = await startJobRouter('jr-auth');
    owner = await h.accountWithKey();
    other = await h.accountWithKey();
    endpointId = await h.endpoint(owner.accountId);
    otherEndpointId = await h.endpoint(other.accountId);
  });
  afterAll(() => h.close());

  const run = (endpoint: string, headers: Record<string, string>) =>
    h.inject({ method: 'POST', url: `/v2/${endpoint}/run`, headers, payload: { input: { n: 1 } } });

  it('answers a missing or unknown key with 401 {"error"}', async () => {
    const missing = await run(endpointId, {});
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toMatchObject({ error: 'Missing API key' });
    const unknown = await run(endpointId, bearer('rpl_' + 'x'.repeat(43)));
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toMatchObject({ error: 'Invalid API key' });
  });

  it("lets the owner in with Bearer or raw keys and answers another account's endpoint with 404", async () => {
    const viaBearer = await run(endpointId, bearer(owner.secret));
    expect(viaBearer.statusCode).toBe(200);
    expect(viaBearer.json()).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}-u1$/), status: 'IN_QUEUE' });
    expect((await run(endpointId, raw(owner.secret))).statusCode).toBe(200);
    const foreign = await run(otherEndpointId, bearer(owner.secret));
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ error: 'Endpoint not found' });
    const status = await h.inject({
      method: 'GET',
      url: `/v2/${otherEndpointId}/health`,
      headers: bearer(owner.secret),
    });
    expect(status.statusCode).toBe(404);
    const missing = await run('no-such-endpoint', bearer(owner.secret));
    expect(missing.statusCode).toBe(404);
  });

  it('admits a RESTRICTED key only on the endpoints it names, READ_ONLY keys only to reads', async () => {
    const allowed = await h.accountWithKey('RESTRICTED', [endpointId]);
    // The key's account must own the endpoint too: a RESTRICTED key of another account still gets 404.
    expect((await run(endpointId, bearer(allowed.secret))).statusCode).toBe(404);
    const { secret } = await createKeyFor(owner.accountId, 'RESTRICTED', [endpointId]);
    expect((await run(endpointId, bearer(secret))).statusCode).toBe(200);
    const elsewhere = await h.endpoint(owner.accountId);
    const denied = await run(elsewhere, bearer(secret));
    expect(denied.statusCode).toBe(401);
    expect(denied.json().error).toMatch(/restricted/);
    const readOnly = await createKeyFor(owner.accountId, 'READ_ONLY');
    expect((await run(endpointId, bearer(readOnly.secret))).statusCode).toBe(401);
    const health = await h.inject({ method: 'GET', url: `/v2/${endpointId}/health`, headers: bearer(readOnly.secret) });
    expect(health.statusCode).toBe(200);
  });

  it('scopes a worker token to its endpoint and worker id; owner ALL keys may act as any worker', async () => {
    const token = await h.workerToken(endpointId, 'w-1');
    const take = (endpoint: string, worker: string, headers: Record<string, string>) =>
      h.inject({ method: 'GET', url: `/v2/${endpoint}/ping/${worker}?runpod_version=1.7.0`, headers });
    expect((await take(endpointId, 'w-1', raw(token))).statusCode).toBe(200);
    expect((await take(endpointId, 'w-1', bearer(token))).statusCode).toBe(200);
    const otherWorker = await take(endpointId, 'w-2', raw(token));
    expect(otherWorker.statusCode).toBe(401);
    expect(otherWorker.json()).toMatchObject({ error: 'This worker token is for another worker' });
    expect((await take(otherEndpointId, 'w-1', raw(token))).statusCode).toBe(401);
    expect((await take(endpointId, 'w-1', raw('rpw_' + 'y'.repeat(43)))).statusCode).toBe(401);
    expect((await take(endpointId, 'w-1', {})).statusCode).toBe(401);
    expect((await take(endpointId, 'any-worker', raw(owner.secret))).statusCode).toBe(200);
    expect((await take(otherEndpointId, 'any-worker', raw(owner.secret))).statusCode).toBe(404);
    const restricted = await createKeyFor(owner.accountId, 'RESTRICTED', [endpointId]);
    expect((await take(endpointId, 'w-1', raw(restricted.secret))).statusCode).toBe(401);
    // A worker token is no client credential.
    expect((await run(endpointId, raw(token))).statusCode).toBe(401);
  });

  it('answers every route, plain or Nest, with x-request-id and errors in the job API shape with the request id', async () => {
    const token = await h.workerToken(endpointId, 'w-rid');
    const headers = { 'x-request-id': 'trace-42' };
    const answers = [
      await h.inject({ method: 'POST', url: `/v2/${endpointId}/run`, headers, payload: { input: {} } }),
      await h.inject({
        method: 'GET',
        url: `/v2/${endpointId}/status/x`,
        headers: { ...headers, ...bearer(owner.secret) },
      }),
      await h.inject({
        method: 'GET',
        url: `/v2/${endpointId}/job-take/w-other`,
        headers: { ...headers, ...raw(token) },
      }),
      await h.inject({ method: 'GET', url: `/v2/${endpointId}/health`, headers }),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([401, 404, 401, 401]);
    for (const answer of answers) {
      expect(answer.headers['x-request-id']).toBe('trace-42');
      expect(answer.json()).toMatchObject({ error: expect.any(String), requestId: 'trace-42' });
    }
  });

  function createKeyFor(accountId: string, scope: 'RESTRICTED' | 'READ_ONLY', endpoints?: string[]) {
    return createAccountsServices(h.db).apiKeys.create(accountId, {
      name: scope,
      scope,
      allowedEndpointIds: endpoints,
    });
  }
});
